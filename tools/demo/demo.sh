#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM: shows the module loaded and its device.
echo "== wheeltimer is loaded"
grep wheeltimer /proc/modules
echo "== its device, open to every user as timerfd is"
ls -l /dev/wheeltimer
echo "== a file opened on it"
exec 3</dev/wheeltimer && ls -l /proc/self/fd/3 && exec 3<&-

