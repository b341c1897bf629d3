#!/bin/sh
# config/default.toml as the system service installs it (/etc/edgeswipe/edgeswipe.toml): the same file, with
# [access] admitting the user of the seat's active logind session besides the daemon's own user and the socket's
# group (the edgeswipe group), as logind's uaccess gives device ACLs to whoever sits at the seat. The embedded
# default keeps the empty lists: a daemon a user runs for themselves serves that user.
set -eu
cd "$(dirname "$0")/.."
sed -e 's/^read = \[\]$/read = ["active-session", "owner", "socket-group"]/' \
    -e 's/^control = \[\]$/control = ["active-session", "owner", "socket-group"]/' config/default.toml
