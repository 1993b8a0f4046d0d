"""Symptoms in a field engineer's words meet the datasheet sentence that explains them."""

from __future__ import annotations

from pathlib import Path

from edge_agent.rag import HardwareRag
from edge_agent.rag.text import tokens


def test_a_sensor_reading_all_zeros_is_asleep() -> None:
    for said in ("reads all zeros", "gives all zeroes", "the x axis reads zero"):
        assert "sleep" in tokens(said), said
    assert "sleep" not in tokens("zeros in the calibration block")


def test_all_zeros_after_power_up_finds_the_sleep_mode_note(tmp_path: Path) -> None:
    (tmp_path / "imu-x1.md").write_text(
        "# IMU X1 - accelerometer\n\n## Output registers\n\n| Register | Name |\n| --- | --- |\n"
        "| 0x3B | ACCEL_XOUT_H |\n| 0x3C | ACCEL_XOUT_L |\n\nEach output is a signed 16-bit value; after power up "
        "the output registers read the last sample.\n\n## Power modes\n\nAfter power up the device starts in sleep "
        "mode: write 0x00 to the mode register to wake it.\n")
    (tmp_path / "display-d1.md").write_text(
        "# Display D1 - OLED controller\n\n## Power\n\nAfter power up the panel reads its supply from VCC.\n")
    top = HardwareRag.load(tmp_path).search("imu reads all zeros after power up")[0]
    assert (top.source, top.heading.split(" > ")[-1]) == ("imu-x1.md", "Power modes")


def test_the_arduino_ides_program_storage_is_the_flash_for_sketches(tmp_path: Path) -> None:
    assert tokens("program storage space") == tokens("flash space")
    assert tokens("program memory") == tokens("program space") == tokens("flash")
    (tmp_path / "kit-m100.md").write_text(
        "# Kit M100 - board notes\n\n## Key specifications\n\n| Item | Value |\n| --- | --- |\n"
        "| Flash available to sketches | 253952 bytes |\n| SRAM | 8 KB |\n\n## Timers\n\nTimer0 runs millis(); "
        "the storage of the program counter is in SRAM.\n")
    top = HardwareRag.load(tmp_path).search("how much program storage space does the m100 have")[0]
    assert top.heading.endswith("Key specifications")
