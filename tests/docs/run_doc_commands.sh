#!/usr/bin/env bash
# Runs the commands a Markdown file shows and compares their output with what
# it shows, so that the docs cannot drift from the program.
#
#   tests/docs/run_doc_commands.sh SCANGEN_DIR REPO_ROOT FILE.md
#
# In every fenced block, a line "$ cat NAME" followed by text writes that text
# to NAME (the file the doc goes on to use); a line "$ scangen ..." is run
# with bash in a fresh folder that holds the repository's examples/ (as
# examples/ and at the top) and tests/docs/fixtures/<doc>/, with SCANGEN_DIR
# first on PATH. The lines after a command, up to the next "$ " line or the
# end of the block, are its expected output (standard output and error
# together): "..." stands for any text, across lines too. A command shown
# with no output must exit 0.
set -uo pipefail
bin="$1" root="$2" doc="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/examples" "$work/examples"
cp "$root"/examples/*.scan "$work/"
name="$(basename "$doc" .md)"
[ -d "$root/tests/docs/fixtures/$name" ] && cp "$root/tests/docs/fixtures/$name"/* "$work/" 2>/dev/null
export PATH="$bin:$PATH"

failures=0 commands=0
# ERE for an expected output: the text literally, "..." as any text.
to_regex() {
  sed -e 's/[][\.*^$(){}+?|/]/\\&/g' -e 's/\\\.\\\.\\\./.*/g'
}
run() {  # COMMAND EXPECTED-FILE
  local cmd="$1" expected="$2" actual rc
  commands=$((commands + 1))
  actual="$(cd "$work" && bash -c "$cmd" 2>&1)"
  rc=$?
  if [ ! -s "$expected" ]; then
    if [ "$rc" -ne 0 ]; then
      echo "FAIL ($doc): '$cmd' exited $rc:"; echo "$actual" | head -n 20; failures=$((failures + 1))
    fi
    return
  fi
  local want pattern
  want="$(cat "$expected")"
  pattern="^$(printf '%s' "$want" | to_regex)\$"
  if ! [[ "$actual" =~ $pattern ]]; then
    echo "FAIL ($doc): '$cmd' printed something else."
    echo "--- shown in the doc"; echo "$want"
    echo "--- printed"; echo "$actual"
    failures=$((failures + 1))
  fi
}

in_block=0 mode="" cmd="" file="" out="$work/.expected"
flush() {
  if [ "$mode" = command ]; then
    # Trailing blank lines of the expected output do not count.
    sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$out"
    run "$cmd" "$out"
  fi
  mode=""
}
while IFS= read -r line || [ -n "$line" ]; do
  if [[ "$line" =~ ^\`\`\` ]]; then
    if [ "$in_block" -eq 1 ]; then flush; in_block=0; else in_block=1; fi
    continue
  fi
  [ "$in_block" -eq 1 ] || continue
  if [[ "$line" =~ ^\$\ cat\ ([^ ]+)$ ]]; then
    next="${BASH_REMATCH[1]}"  # before flush, whose matching resets BASH_REMATCH
    flush
    mode=cat file="$work/$next"
    : >"$file"
  elif [[ "$line" =~ ^\$\ (scangen.*)$ ]]; then
    next="${BASH_REMATCH[1]}"
    flush
    mode=command cmd="$next"
    : >"$out"
  elif [ "$mode" = cat ]; then
    printf '%s\n' "$line" >>"$file"
  elif [ "$mode" = command ]; then
    printf '%s\n' "$line" >>"$out"
  fi
done <"$doc"
echo "$doc: $commands commands, $failures failed"
[ "$commands" -gt 0 ] || { echo "$doc shows no commands: nothing was checked"; exit 1; }
[ "$failures" -eq 0 ]
