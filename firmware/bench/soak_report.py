"""The soak's JUnit XML report: one testcase per invariant, for CI dashboards."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from firmware.bench.soak import SoakResult


def write_soak_junit(path: str | Path, result: SoakResult) -> None:
    failures = sum(not c.ok for c in result.checks)
    suite = ET.Element(
        "testsuite", name=f"etg bench soak ({result.variant})", tests=str(len(result.checks)),
        failures=str(failures), errors="0", time=f"{result.seconds:.3f}",
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (("rounds", str(result.rounds)),
                        ("rounds_per_second", f"{result.rate:.3f}"),
                        *((f"injected: {k}", str(n)) for k, n in sorted(result.injected.items()))):
        ET.SubElement(props, "property", name=name, value=value)
    for c in result.checks:
        case = ET.SubElement(suite, "testcase", classname=f"soak.{result.variant}", name=c.name,
                             time="0")
        if not c.ok:
            ET.SubElement(case, "failure", message=c.detail).text = c.detail
        else:
            ET.SubElement(case, "system-out").text = c.detail
    root = ET.Element("testsuites")
    root.append(suite)
    tree = ET.ElementTree(root)
    ET.indent(tree)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)
