#!/bin/sh
# The official registry:2 image's entrypoint: a config file argument means `registry serve <file>`;
# a subcommand or an option is given to `registry`; anything else runs as it is.
set -e
case "$1" in
  *.yaml | *.yml) set -- registry serve "$@" ;;
  serve | garbage-collect | help | -*) set -- registry "$@" ;;
esac
exec "$@"
