"""The miniature paper ablation (examples/paper-ablation/ablation.py) end to
end at toy size: every arm trains, the table and the results section are
written into an existing document, and arms differ from one another (a
quantization that silently did nothing would give bf16's numbers)."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                      "paper-ablation", "ablation.py")


def test_every_arm_trains_and_the_results_are_written(tmp_path):
    doc = tmp_path / "paper-ablation.md"
    doc.write_text("# Title\n\n<!-- results -->\nold\n<!-- /results -->\n\n"
                   "Discussion.\n")
    result = subprocess.run(
        [sys.executable, SCRIPT, "--steps", "3", "--seeds", "2", "--layers",
         "3", "--hidden", "32", "--heads", "2", "--context", "16", "--batch",
         "2", "--corpus-bytes", "200000", "--out", str(tmp_path)],
        capture_output=True, text=True, env=dict(os.environ))
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    rows = [line for line in lines if line.startswith("| ") and
            not line.startswith("| arm") and not line.startswith("| ---")]
    assert [row.split(" | ")[0][2:] for row in rows] == [
        "bf16", "nvfp4", "no-rht", "no-sr", "1x16-weights", "all-fp4",
        "mxfp4", "nvfp4+mxfp8"]
    losses = [float(row.split(" | ")[1]) for row in rows]
    assert all(3.0 < loss < 7.0 for loss in losses)
    assert len(set(losses)) == len(losses)
    assert "(t = " in rows[2]
    text = doc.read_text()
    assert text.startswith("# Title\n\n<!-- results -->\nRecorded ")
    assert "| all-fp4 |" in text and "old" not in text
    assert text.endswith("<!-- /results -->\n\nDiscussion.\n")
