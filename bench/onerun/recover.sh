#!/usr/bin/env bash
# Undoes what a bench/onerun/hold.sh, drop.sh or pace.sh run killed with kill -9
# left on the host (its cgroup, zram0 as swap, its job), from the journal
# those scripts keep (hostguard.sh). Does nothing when there is none.
#
#   sudo bench/onerun/recover.sh
set -euo pipefail
. "$(dirname "$0")/hostguard.sh"
if [ ! -f "$guard_journal" ]; then
	echo "nothing to undo ($guard_journal does not exist)"
	exit 0
fi
guard_begin
guard_undo
echo "undone"
