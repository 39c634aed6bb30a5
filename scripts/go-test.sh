#!/bin/sh
# `npm run test:go`: gofmt, go vet, staticcheck and go test of agent/, with go test's events kept in
# test-output/go-test.jsonl so that .ci/run can count the Go tests; prints the failures' output and one summary line.
# staticcheck runs as a tool from the Go module proxy (`go run pkg@version`), outside the agent's go.mod.
set -u
cd "$(dirname "$0")/../agent" || exit 1
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted"; exit 1; fi
go vet ./... || exit 1
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./... || exit 1
mkdir -p ../test-output
go test -count=1 -json ./... > ../test-output/go-test.jsonl
status=$?
node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const failed = new Set(lines.filter((e) => e.Action === "fail" && e.Test).map((e) => e.Test));
  for (const e of lines) if (e.Test && failed.has(e.Test) && e.Action === "output") process.stdout.write(e.Output);
  for (const e of lines) if (!e.Test && e.Action === "output" && /^(ok|FAIL|---)/.test(e.Output)) process.stdout.write(e.Output);
  const n = (a) => lines.filter((e) => e.Action === a && e.Test).length;
  console.log(`go test: ${n("pass")} passed, ${n("fail")} failed, ${n("skip")} skipped`);
' ../test-output/go-test.jsonl
exit $status
