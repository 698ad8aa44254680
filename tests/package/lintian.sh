# lintian on the .deb packages: no error and no warning (Debian 12's lintian; info tags are shown).
set -euo pipefail
command -v lintian > /dev/null || { echo "skipped: lintian is not installed"; exit 77; }
lintian --display-info --fail-on error,warning "${PMUKIT_PACKAGES:?}"/*.deb
echo "lintian: no errors, no warnings"
