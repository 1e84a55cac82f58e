#!/bin/sh
# The smallest quintet bot (docs/bot-protocol.md, version 1): it plays the first legal
# action of every decision and never signals. It reads the manager's compact JSON with
# shell patterns only, which is enough here: "legal" is a list of plain strings.
#
#   quintet arena --bots "cmd:sh examples/first-legal.sh",random --deals 4
while IFS= read -r line; do
    case $line in
    *'"type":"hello"'*)
        printf '%s\n' '{"type":"ready","name":"first-legal.sh","signals":false}' ;;
    *'"type":"decide"'*)
        rest=${line#*\"legal\":[\"}
        printf '{"type":"action","action":"%s"}\n' "${rest%%\"*}" ;;
    *'"type":"signal?"'*)
        printf '%s\n' '{"type":"pass"}' ;;
    *'"type":"quit"'*)
        exit 0 ;;
    esac
done
