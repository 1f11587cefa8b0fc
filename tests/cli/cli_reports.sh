#!/usr/bin/env bash
# Reports for CI: `blockvec run|demo --sarif FILE --junit FILE`, and BV_SARIF=FILE for a user's
# own program. Every SARIF log is validated against the SARIF 2.1.0 schema (data/, from OASIS);
# locations, levels and rule ids are checked; the JUnit XML is parsed and its counts checked.
#   cli_reports.sh BLOCKVEC USER_PROGRAM_WITH_A_BUG
set -euo pipefail
bv=$1
buggy=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

check() {  # check SARIF_FILE PYTHON_ASSERTIONS: schema-valid, then the assertions on `log`
  python3 - "$1" "$here/data/sarif-schema-2.1.0.json" "$2" <<'PY'
import json, sys
import jsonschema
log = json.load(open(sys.argv[1]))
schema = json.load(open(sys.argv[2]))
jsonschema.validators.validator_for(schema)(schema).validate(log)
run = log["runs"][0]
results = run["results"]
rules = run["tool"]["driver"]["rules"]
for r in results:
    assert rules[r["ruleIndex"]]["id"] == r["ruleId"], r
exec(sys.argv[3])
PY
}

# A correct kernel: a valid log with no results, a JUnit case that passed.
"$bv" run add --size 3001 --seed 1 --sarif clean.sarif --junit clean.xml >/dev/null
check clean.sarif 'assert results == [], results'
python3 - clean.xml <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and root.get("tests") == "1" and root.get("failures") == "0", ET.tostring(root)
case = root.find("testsuite/testcase")
assert case.get("name").startswith("add 3001"), case.attrib
assert case.find("failure") is None and case.find("error") is None
PY

# Performance notes (on with --notes): level note, a source line in the kernel's header.
"$bv" run matmul --size 100,70,90 --seed 1 --notes --target gfx942 --sarif notes.sarif >/dev/null
check notes.sarif '
assert results, "matmul on gfx942 has uncoalesced notes"
for r in results:
    assert r["level"] == "note", r
    loc = r["locations"][0]["physicalLocation"]
    assert loc["region"]["startLine"] > 0, loc
    assert loc["artifactLocation"]["uri"].endswith("matmul.hpp"), loc
    assert r["locations"][0]["logicalLocations"][0]["kind"] == "function"
assert {r["ruleId"] for r in results} <= {"uncoalesced", "low-utilisation", "non-contiguous"}
'
# Without --notes the same run says nothing.
"$bv" run matmul --size 100,70,90 --seed 1 --target gfx942 --sarif quiet.sarif >/dev/null
check quiet.sarif 'assert results == [], results'

# A user's program with an out-of-bounds store, BV_SARIF=FILE: an error at its source line,
# relative to the directory it ran in when the source lies under it.
BV_SARIF=$work/user.sarif "$buggy" || true
store_line=$(grep -n '64 lanes into 32 elements' "$here/../diagnostics/exit_helper.cpp" | cut -d: -f1)
check user.sarif '
assert len(results) >= 1, results
r = results[0]
assert r["ruleId"] == "out-of-bounds" and r["level"] == "error", r
loc = r["locations"][0]["physicalLocation"]
assert loc["artifactLocation"]["uri"].endswith("exit_helper.cpp"), loc
assert loc["region"]["startLine"] == '"$store_line"', loc
assert r["properties"]["program"] == [0, 0, 0], r
'

# demo: one JUnit case per kernel, all passing.
n=$("$bv" list | wc -l)
"$bv" demo --junit demo.xml --sarif demo.sarif >/dev/null
check demo.sarif 'assert all(r["level"] != "error" for r in results), results'
python3 - demo.xml "$n" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall("testsuite/testcase")
assert len(cases) == int(sys.argv[2]), (len(cases), sys.argv[2])
assert root.get("failures") == "0" and root.get("errors") == "0", root.attrib
PY

# A report that cannot be written is a usage error, not a silent pass.
if "$bv" run add --size 100 --sarif /nonexistent-dir/x.sarif >/dev/null 2>err.txt; then
  echo "an unwritable --sarif path passed" >&2; exit 1
fi
grep -q "cannot write the SARIF log" err.txt
echo "cli_reports: ok"
