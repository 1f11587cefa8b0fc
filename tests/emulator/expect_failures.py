#!/usr/bin/env python3
"""Runs a doctest binary built with a deliberate bug and passes only if it fails the way it must.

usage: expect_failures.py BINARY 'TEST CASE NAME' ['TEST CASE NAME' ...]

The binary must exit non-zero, finish its run (a crash is no proof the tests see the bug), and
every named test case must have failed assertions. Test cases outside the list may pass or fail;
they are listed either way.
"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: expect_failures.py BINARY 'TEST CASE NAME' ['TEST CASE NAME' ...]")
    binary, expected = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "junit.xml")
        env = dict(os.environ, BV_EMU_QUIET="1")
        run = subprocess.run([binary, "--reporters=junit", "--out=" + report, "--no-colors"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            root = ET.parse(report).getroot()
        except (OSError, ET.ParseError) as e:
            print(run.stdout[-4000:])
            sys.exit(f"FAIL: {binary} left no complete test report (exit {run.returncode}): {e}")
    failed, passed = set(), set()
    for case in root.iter("testcase"):
        bad = case.find("failure") is not None or case.find("error") is not None
        (failed if bad else passed).add(case.get("name"))
    passed -= failed  # a case is listed once per subcase
    print(f"{binary}: exit {run.returncode}")
    for name in sorted(failed):
        print(f"  failed (as a test must under this bug): {name}")
    for name in sorted(passed):
        print(f"  passed: {name}")
    problems = []
    if run.returncode == 0:
        problems.append("the binary exited 0")
    for name in expected:
        if name not in failed | passed:
            problems.append(f"no test case named '{name}' ran")
        elif name not in failed:
            problems.append(f"'{name}' passed with the bug in")
    if problems:
        sys.exit("FAIL: the tests do not catch the bug: " + "; ".join(problems))
    print(f"OK: all {len(expected)} expected test cases fail")


if __name__ == "__main__":
    main()
