// SPDX-License-Identifier: GPL-2.0
/*
 * wheeltimer - millions of timeouts per file in a tickless timing wheel
 *
 * Each open of /dev/wheeltimer is an independent context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

static int wheeltimer_open(struct inode *inode, struct file *file)
{
	return 0;
}

static int wheeltimer_release(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations wheeltimer_fops = {
	.owner		= THIS_MODULE,
	.open		= wheeltimer_open,
	.release	= wheeltimer_release,
	.llseek		= noop_llseek,
};

static struct miscdevice wheeltimer_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "wheeltimer",
	.fops		= &wheeltimer_fops,
	/* Meant for unprivileged programs, as timerfd is. */
	.mode		= 0666,
};

static int __init wheeltimer_init(void)
{
	return misc_register(&wheeltimer_misc);
}

static void __exit wheeltimer_exit(void)
{
	misc_deregister(&wheeltimer_misc);
}

module_init(wheeltimer_init);
module_exit(wheeltimer_exit);

MODULE_DESCRIPTION("Tickless hierarchical timing wheel behind /dev/wheeltimer");
MODULE_LICENSE("GPL");
