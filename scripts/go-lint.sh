#!/bin/sh
# `npm run lint:go`: the Go half of `npm run lint`. gofmt, go vet and staticcheck over agent/, then the limits ESLint
# holds TypeScript to (120 characters a line, 80 lines a function, 500 lines a file), which neither gofmt nor vet
# checks. staticcheck runs as a tool from the Go module proxy (`go run pkg@version`), outside the agent's go.mod.
# A tab counts as one character: gofmt indents with tabs, editors show them wider, so the limit is on characters.
set -u
cd "$(dirname "$0")/../agent" || exit 1
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; exit 1; fi
go vet ./... || exit 1
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./... || exit 1
# gofmt puts a top-level func's opening at column 0 and its closing brace alone on a line at column 0.
find . -name '*.go' | sort | xargs node -e '
  let bad = false;
  const say = (where, what) => { console.log(`agent/${where.replace(/^\.\//, "")}: ${what}`); bad = true; };
  for (const file of process.argv.slice(1)) {
    const lines = require("fs").readFileSync(file, "utf8").split("\n");
    if (lines.length > 500) say(file, `${lines.length} lines (at most 500)`);
    let start = -1;
    lines.forEach((line, i) => {
      if ([...line].length > 120) say(`${file}:${i + 1}`, `${[...line].length} characters (at most 120)`);
      if (line.startsWith("func ")) start = i;
      if (line.startsWith("}") && start >= 0) {
        if (i - start + 1 > 80) say(`${file}:${start + 1}`, `function of ${i - start + 1} lines (at most 80)`);
        start = -1;
      }
    });
  }
  process.exit(bad ? 1 : 0);
' || exit 1
