#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the VM (make demo): shows the device, runs the demo scenario and
# a few wheelctl commands. Exits non-zero if the demo found a timeout that
# fired early, was lost or was delivered twice.
echo "== wheeltimer is loaded; its device is open to every user, as timerfd is"
grep wheeltimer /proc/modules
ls -l /dev/wheeltimer

/bin/wheeltimer-demo
status=$?

echo
echo "== the same from a shell: wheelctl runs commands on one open file"
echo "\$ wheelctl add 50ms --cookie 7 -- add 1s --cookie 8 -- cancel %2 -- watch"
/bin/wheelctl add 50ms --cookie 7 -- add 1s --cookie 8 -- cancel %2 -- watch ||
	status=1
exit $status
