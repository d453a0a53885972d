# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the checks of a build outside the tree (check-deb,
# running-kernel-check): set UNIT (the prefix of their unit names) and
# status=0 first.

# check NAME COMMAND...: one kselftest-style unit, "# unit: UNIT/NAME" then
# "ok 1 NAME" if COMMAND succeeds, else "not ok 1 NAME" and status=1; its
# output is kept as comments (the last 40 lines of a failure).
check()
{
	local name=$1 out
	shift
	echo "# unit: $UNIT/$name"
	if out=$("$@" 2>&1); then
		[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
		echo "ok 1 $name"
	else
		printf '%s\n' "$out" | tail -n 40 | sed 's/^/# /'
		echo "not ok 1 $name"
		# shellcheck disable=SC2034 # the caller's status
		status=1
	fi
}

# copy_tree TOP DEST: the tree at TOP as git has it, with the new files it
# does not ignore, so that uncommitted work is checked too (a file deleted
# but not yet committed is left out); never build/ or the kernel's
# objects. Outside git, everything but build/.
copy_tree()
{
	local top=$1 dest=$2

	mkdir -p "$dest" || return 1
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z -co --exclude-standard |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
			tar -xf - -C "$dest"
	else
		tar -C "$top" --exclude=./build --exclude-vcs -cf - . | tar -xf - -C "$dest"
	fi
}
