#!/bin/sh
# `npm run test:go`: go test of agent/, with go test's events kept in test-output/go-test.jsonl so that .ci/run can
# count the Go tests; prints the failures' output and one summary line. gofmt, vet and staticcheck are in
# `npm run lint` (scripts/go-lint.sh).
set -u
cd "$(dirname "$0")/../agent" || exit 1
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
