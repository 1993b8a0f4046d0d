"""Ranking rules on top of BM25: synonyms as data, boards named informally, scope, exact tokens, diversity;
and the hit rates on the tuning and held-out question sets."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from edge_agent.paths import bundled_datasheets_dir
from edge_agent.rag import HardwareRag
from edge_agent.rag.boards import content_terms, detect, mentions, nickname_words, nicknames, tag_words
from edge_agent.rag.text import tokens

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench._rag_heldout import HELD_OUT  # noqa: E402
from bench._rag_heldout2 import HELD_OUT_2  # noqa: E402
from bench._rag_heldout3 import HELD_OUT_3  # noqa: E402
from bench._rag_heldout4 import HELD_OUT_4  # noqa: E402
from bench._rag_heldout5 import HELD_OUT_5  # noqa: E402
from bench._rag_questions import QUESTIONS, Question  # noqa: E402
from bench.rag import _score  # noqa: E402


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_synonyms_and_phrases_from_the_vocabulary_meet_the_datasheet_words() -> None:
    assert tokens("tactile switch") == tokens("button")
    assert tokens("thermometer") == tokens("temperature")
    assert tokens("bit clock") == tokens("BCLK")
    assert tokens("refreshed") == tokens("update")
    assert tokens("MPU-6050") == tokens("mpu6050")
    assert tokens("aux spi") == tokens("auxiliary SPI")
    assert tokens("barometer") == tokens("pressure")
    assert "cs" in tokens("CE1") and "cs" in tokens("NSS") and tokens("chip enable") == tokens("chip select")
    assert "ain" in tokens("AIN7") and tokens("analog inputs") == tokens("analogue input")
    assert tokens("USB vendor ID") == tokens("usb VID")
    assert tokens("analogWrite") == tokens("PWM")  # Arduino's analogWrite() is PWM on the pins that have it
    assert tokens("reflash") == tokens("flash") and tokens("re-flashed")[-1] == tokens("flash")[0]
    # plurals in -es meet their singular: "two I2C buses", "GPIO18 switches the fan", "the LED flashes"
    assert tokens("buses") == tokens("bus") and tokens("switches") == tokens("switch")
    assert tokens("flashes") == tokens("flash") and tokens("branches") == tokens("branch")
    assert tokens("caches") == tokens("cache") and tokens("pulses") == tokens("pulse")  # an -e word's plural


def test_everyday_names_of_datasheet_terms_meet_them() -> None:
    """Words a field engineer uses for the terms the datasheets write (found by reading the datasheets)."""
    assert tokens("TWI") == tokens("I2C") == tokens("IIC")  # Atmel's and the older name of the bus
    assert tokens("COPI") == tokens("MOSI") and tokens("CIPO") == tokens("MISO")
    assert tokens("XTAL") == tokens("crystal") and tokens("osc") == tokens("oscillator")
    assert tokens("three traffic-light LEDs") == tokens("three stoplight LEDs")
    assert tokens("open collector output") == tokens("open-drain output")
    assert tokens("solder jumpers") == tokens("solder bridge")
    assert tokens("brown-outs") == tokens("brownout")
    assert tokens("PSU") == tokens("power supply")
    assert tokens("clock chip") == tokens("RTC")
    assert "builtin" in tokens("built-in LED") and "builtin" in tokens("LED_BUILTIN")
    assert "led" in tokens("LED1 / Green")  # a numbered LED is an LED
    assert tokens("INT pin") == tokens("interrupt pin") and tokens("earth") == tokens("GND")
    assert tokens("piezo beeper") == tokens("buzzer buzzer") and tokens("amperage") == tokens("current")
    assert tokens("H-bridge") == tokens("motor driver") and tokens("square-wave output") == tokens("SQW output")
    assert tokens("analog out pin") == tokens("DAC pin") and tokens("analogue reference") == tokens("AREF")
    assert tokens("floating point unit") == tokens("FPU")
    assert tokens("one wire overlay") == tokens("1-Wire overlay")
    assert tokens("DS18B20 sensors") == tokens("1-Wire sensors")  # the bus's everyday part names it
    assert tokens("860 samples per second") == tokens("860 SPS")
    assert tokens("logic level converter") == tokens("level shifter") == tokens("level-shift")
    assert tokens("low-pass filter") == tokens("DLPF") and tokens("multiplexer") == tokens("mux")
    assert tokens("strapping pins") == tokens("strap pin") == tokens("strapped pins")  # ESP32 boot straps
    assert tokens("screen") == tokens("display")
    # the mode that takes new firmware: ESP32 download mode, flash mode, DFU mode, programming mode
    assert tokens("flash mode") == tokens("download mode") == tokens("DFU mode") == tokens("bootloader mode")
    assert "flash" in tokens("flash memory size")  # flash on its own is the memory
    assert tokens("analog audio") == tokens("analogue audio") == tokens("AAUD")  # the RP1's audio function
    assert tokens("+-3 %RH") == tokens("+-3 humidity") and tokens("does it do rh") == tokens("does it do humidity")
    assert tokens("no power light") == tokens("no power LED") and tokens("status light") == tokens("status LED")
    assert tokens("green activity LED") == tokens("green ACT LED") == tokens("green activity light")
    assert tokens("needs sudo") == tokens("needs root")
    assert tokens("how much ram") == tokens("how much SRAM") == tokens("how much memory")
    assert "light" in tokens("light sensor") and tokens("yellow light") == tokens("amber light")
    assert tokens("heating element") == tokens("heater") and tokens("fogged up") == tokens("condensation up")
    assert tokens("picture upside down") == tokens("picture flip vertically")  # the COM scan direction
    assert tokens("drag and drop") == tokens("mass storage") and tokens("lamps") == tokens("illumination")
    assert tokens("rtc coin cell") == tokens("rtc battery")
    assert tokens("how many amps") == tokens("how many current")  # "amp" alone is also an amplifier
    assert "current" not in tokens("op-amp")
    assert tokens("clock module") == tokens("rtc module") == tokens("RTC")
    assert tokens("debug trace output") == tokens("debug SWO")  # the Cortex-M trace pin
    assert tokens("how fast does it spin") == tokens("speed does it spin")
    assert tokens("4,200 RPM") == tokens("4,200 speed")  # a fan's speed
    # a pin reading a level with nothing attached is held there by a pull resistor
    assert {"pullup", "pulldown"} <= set(tokens("reads high with nothing attached"))
    assert tokens("nothing connected") == tokens("left floating") == tokens("pull-up pull-down")
    assert tokens("GPIO26 analog output") == tokens("GPIO26 analogue output") == tokens("GPIO26 DAC")
    # American spellings and everyday names of what the environment boards' sensors measure
    assert tokens("color sensor") == tokens("colour sensor") and tokens("colored LEDs") == tokens("coloured LEDs")
    assert tokens("servo center pulse") == tokens("servo centre pulse") and tokens("lux") == tokens("light")
    assert tokens("air quality") == tokens("gas") and tokens("dust sensor") == tokens("particulate sensor")
    assert tokens("sound level") == tokens("loudness") == tokens("noise level")
    assert tokens("distance sensor") == tokens("proximity sensor")
    # a resistor's value as a field engineer writes it: 4k7 and 4.7k are the datasheet's 4.7 kOhm
    assert tokens("4k7 pull-up") == tokens("4.7k pull-up") == tokens("4.7 kOhm pull-up") == tokens("4.7 kilohm pull-up")
    assert tokens("10K resistor") == tokens("10 kOhm resistor") and tokens("3v3") == tokens("3.3 V")


def test_lower_case_can_is_the_bus_only_where_a_can_signal_or_part_follows() -> None:
    for bus in ("PB13 can transmit", "PB12 can rx?", "the can transceiver on PB8", "which f446 pins carry the can tx"):
        assert "can" in tokens(bus), bus
    for modal in ("PB13 can transmit data", "can pins 8 and 10 take 5 V", "how much current can I draw",
                  "an Arduino shield can be used", "Can rx be remapped"):
        assert "can" not in tokens(modal), modal


def test_an_everyday_word_finds_the_board_that_carries_it(tmp_path: Path) -> None:
    _write(tmp_path, "traffic-hat.md", "# Traffic HAT\n\nThree traffic-light LEDs and a buzzer.\n\n## Header usage\n\n"
           "| Component | Pin |\n| --- | --- |\n| LED1 / Green | GPIO22 |\n| LED3 / Red | GPIO24 |\n")
    _write(tmp_path, "nucleo-f401re.md", "# Nucleo\n\n## LEDs\n\nThe green LED and the red LED: user LED pin, "
           "green LED pin on the header, red LED pin beside it.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.detect_boards("stoplight board green led pin") == ["traffic-hat"]
    assert rag.search("stoplight board green led pin")[0].source == "traffic-hat.md"


def test_a_header_map_headed_phys_answers_a_physical_pin(tmp_path: Path) -> None:
    # The Pi header map numbers its positions in a column written "Phys"; a HAT's table of the pins it uses writes
    # "Physical pin". Both hold a row 12: the header map says what position 12 is on every Pi.
    rows = "".join(f"{n:<4} | {name:<10} | {gpio:<6} | {role}\n" for n, name, gpio, role in (
        (8, "UART0 TX", "GPIO14", "serial transmit"), (10, "UART0 RX", "GPIO15", "serial receive"),
        (11, "GPIO17", "GPIO17", "plain GPIO"), (12, "PCM CLK", "GPIO18", "PCM/I2S bit clock, PWM0 alt"),
        (13, "GPIO27", "GPIO27", "plain GPIO"), (15, "GPIO22", "GPIO22", "plain GPIO")))
    _write(tmp_path, "rpi-gpio.txt", "# Raspberry Pi 40-pin GPIO header\n\nThe header every 40-pin Pi shares.\n\n"
           "## Header map\n\nPhys | Name       | BCM    | Default role\n"
           "---- | ---------- | ------ | ------------\n" + rows)
    _write(tmp_path, "fan-shim.md", "# Fan SHIM\n\nA fan for the Pi 4.\n\n## Header usage\n\n"
           "| Physical pin | BCM | Signal |\n| --- | --- | --- |\n"
           "| 12 | GPIO18 | fan control |\n| 11 | GPIO17 | button |\n")
    rag = HardwareRag.load(tmp_path)
    assert tokens("Phys") == tokens("physical")
    assert rag.search("what is on physical pin 12")[0].source == "rpi-gpio.txt"


def test_a_sibling_part_named_in_a_files_title_names_that_file(tmp_path: Path) -> None:
    """One register map, two part numbers: "LM75A / LM75B" in a title makes "lm75b" name the file, unless the question
    names the board carrying the part, or another file's title gives the same sibling."""
    _write(tmp_path, "lm75a.md", "# LM75A / LM75B - digital temperature sensor\n\nThe LM75B is the lower-power "
           "revision.\n\n## Registers\n\n| Pointer | Register |\n| --- | --- |\n| 0x00 | Temp |\n| 0x01 | Conf |\n")
    _write(tmp_path, "sensor-hat.md", "# Sensor HAT\n\nCarries an LM75B at 0x48 beside a light sensor.\n\n"
           "## Registers\n\nThe light sensor's pointer register selects its channel.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.detect_boards("lm75b pointer register") == ["lm75a"]
    assert rag.search("lm75b pointer register")[0].source == "lm75a.md"
    assert rag.detect_boards("sensor hat lm75b address") == ["sensor-hat"]
    assert rag.detect_boards("lm75c pointer register") == []  # no title names it
    _write(tmp_path, "lm75-clone.md", "# LM75 clone / LM75B - second source\n\nPin compatible.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.detect_boards("lm75b pointer register") == ["lm75a"]  # "lm75" has no digits-and-letters part here
    _write(tmp_path, "lm75b2.md", "# LM75B2 / LM75B - second source\n\nPin compatible.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.detect_boards("lm75b pointer register") == []  # two titles give it: it names neither


def test_informal_board_and_part_names_are_detected() -> None:
    names = nicknames(["nucleo-f401re", "nucleo-g071rb", "rpi-4b", "rpi-5", "rpi-gpio", "arduino-uno", "bme280",
                       "esp32-devkitc", "fan-shim", "arduino-mega2560"])
    assert detect("system clock PLL settings f401", names) == ["nucleo-f401re"]
    assert detect("what is the user LED on the G071RB", names) == ["nucleo-g071rb"]
    assert detect("Pi 4 GPIO input threshold", names) == ["rpi-4b"]
    assert detect("serial console on a Raspberry Pi 5", names) == ["rpi-5"]
    assert detect("Raspberry Pi 4B uart pins", names) == detect("cm4 uart pins", names) == ["rpi-4b"]
    more = nicknames(["rpi-gpio", "rpi-pico", "rpi-zero-2w", "nrf52840dk", "sense-hat", "mpu6050", "sht31",
                       "ssd1306", "pca9685", "nucleo-l476rg"])
    # the Pico's full name is not the 40-pin header's "raspberry pi"; a Zero 2 W is not any other Zero
    assert detect("raspberry pi pico adc pins", more) == ["rpi-pico"]
    assert detect("pi zero 2w uart", more) == detect("raspberry pi zero 2 w pins", more) == ["rpi-zero-2w"]
    assert detect("pi zero w pins", more) == ["rpi-gpio"]
    assert detect("nordic dk buttons", more) == ["nrf52840dk"] and detect("astro pi joystick", more) == ["sense-hat"]
    assert detect("gy-521 address", more) == ["mpu6050"] and detect("sht30 heater", more) == ["sht31"]
    assert detect("oled contrast", more) == ["ssd1306"] and detect("servo driver frequency", more) == ["pca9685"]
    assert detect("stm32l476rg clock", more) == ["nucleo-l476rg"]
    more = nicknames(["rpi-gpio", "rpi-4b", "explorer-hat-pro", "bme280", "ads1115"])
    assert detect("raspberry pi 400 uart", more) == detect("raspi 4 uart", more) == ["rpi-4b"]  # not the header's
    assert detect("explorerhat inputs", more) == ["explorer-hat-pro"] and detect("bme 280 address", more) == ["bme280"]
    assert detect("ads1x15 gain", more) == ["ads1115"]
    assert detect("uno flash size", names) == ["arduino-uno"]
    assert detect("my BME280 reads 0x58", names) == ["bme280"]
    assert detect("fan shim button", names) == ["fan-shim"]
    assert detect("mega serial pins", names) == ["arduino-mega2560"]
    assert detect("the fan is loud", names) == []  # one word of a two-word name is not the name
    # a part's number of four digits or more names it on its own; a shorter one is often a value or shared
    names = nicknames(["arduino-mega2560", "mpu6050", "bme280", "bmp280", "nucleo-f401re"])
    assert detect("PC0 on the 2560 digital number", names) == ["arduino-mega2560"]
    assert detect("6050 sleep bit", names) == ["mpu6050"]
    assert detect("280 chip id", names) == [] and detect("401 user led", names) == []
    # an STM32 series by its family name where one board carries it
    names = nicknames(["nucleo-g071rb", "nucleo-l476rg", "nucleo-f401re", "nucleo-f446re"])
    assert detect("PB14 which arduino D pin on the g0", names) == ["nucleo-g071rb"]
    assert detect("stm32l4 low power modes", names) == ["nucleo-l476rg"]
    assert "2560" in tag_words(["arduino-mega2560"])  # it tells the file, so it earns no exact-token bonus
    # every number that names a part in a question is a tag word too: a name never doubles as a value
    tags = ["arduino-mega2560", "mpu6050", "ds3231", "nucleo_f401re", "bme280", "rpi gpio"]
    numbers = {name for name in nicknames(tags) if name.isdigit()}
    assert numbers == {"2560", "6050", "3231"} and numbers <= tag_words(tags)
    # boards known by what their notes say they are or carry
    names = nicknames(["sense-hat", "enviro-phat", "enviro-plus", "piglow"])
    assert detect("astro pi board joystick part", names) == ["sense-hat"]
    assert detect("weather phat light sensor", names) == ["enviro-phat"]
    assert detect("spiral led board header pins", names) == ["piglow"]


def test_the_words_no_name_holds_are_passed_over_without_changing_what_is_found() -> None:
    names = nicknames(["nucleo-f401re", "rpi-4b", "rpi-5", "rpi-gpio", "fan-shim", "arduino-mega2560", "bme280"])
    words = nickname_words(names)
    assert all(w in words for w in ("fan", "shim", "pi", "4", "f401", "2560")) and "loud" not in words
    every = {w for name in names for w in name.split()}  # each word of each name, one name of one word or several
    for w in [*every, *names, "loud", "fan shim", "", "rpi", "4b", "mega", 7]:
        assert (w in words) == (w in every)
    for q in ("fan shim button on the pi 4", "the fan is loud", "PC0 on the 2560 and the f401 user led",
              "serial console on a Raspberry Pi 5 with a bme280", "raspberry pi 4b fan shim", "pi 4 pi 5 gpio"):
        assert mentions(q, names, words=words) == mentions(q, names)
    assert mentions("is the fan shim on pi 5 loud", names, words=words) == [("fan-shim", "fan shim"), ("rpi-5", "pi 5")]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "ds"
    _write(root, "nucleo-f401re.md", "# NUCLEO-F401RE\nA Nucleo-64 board with an STM32F401. The user button and "
                                     "the user LED are described below.\n## LED\nThe user LED LD2 is on PA5.\n")
    _write(root, "nucleo-l476rg.md", "# NUCLEO-L476RG\n## LED\nThe user LED LD2 is on PA5, same as other boards.\n"
                                     "## Button\nThe user button B1 is on PC13.\n")
    _write(root, "bme280.md", "# BME280\nBosch humidity, pressure and temperature sensor on I2C.\n"
                              "## Chip id\nRegister 0xD0 reads 0x60.\n## Modes\nSleep, forced and normal modes.\n")
    _write(root, "ds3231.md", "# DS3231\n## Temperature\nThe temperature register is refreshed every 64 s.\n")
    return root


def test_a_part_named_in_the_question_is_searched_as_if_scoped(corpus: Path) -> None:
    rag = HardwareRag.load(corpus)
    assert rag.detect_boards("where is the l476 user button") == ["nucleo-l476rg"]
    assert rag.search("where is the l476 user button")[0].source == "nucleo-l476rg.md"
    assert rag.search("thermometer update rate of the ds3231")[0].source == "ds3231.md"


def test_with_a_scope_another_boards_chunk_never_outranks_the_scoped_boards(corpus: Path) -> None:
    rag = HardwareRag.load(corpus)
    got = [c.source for c in rag.search("user button", ["nucleo-f401re"])]
    assert got[0] == "nucleo-f401re.md"
    assert got.index("nucleo-l476rg.md") > max(i for i, s in enumerate(got) if s == "nucleo-f401re.md")
    # parts and generic notes still compete on score
    assert rag.search("BME280 chip id register", ["nucleo-f401re"])[0].source == "bme280.md"


def test_the_chunk_holding_the_exact_register_beats_the_overview(corpus: Path) -> None:
    top = HardwareRag.load(corpus).search("bme280 humidity sensor register 0xD0")[0]
    assert (top.source, top.heading) == ("bme280.md", "BME280 > Chip id")


def test_results_are_diversified_across_files(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "".join(f"## Part {i}\nuart tx rx pins of the board, section {i}\n" for i in range(6)))
    _write(tmp_path, "b.md", "# Other\nuart tx rx pins\n")
    got = [c.source for c in HardwareRag.load(tmp_path).search("uart tx rx pins", limit=3)]
    assert "b.md" in got


# --- the question sets ------------------------------------------------------------------------------------


def test_the_held_out_set_is_its_own_file_and_shares_no_question_with_the_tuning_set() -> None:
    assert len(HELD_OUT) >= 40
    assert not {q.text.lower() for q in HELD_OUT} & {q.text.lower() for q in QUESTIONS}
    assert {q.corpus for q in HELD_OUT} == {"shared", "bundled"}


def test_the_second_held_out_set_shares_no_question_with_the_others_and_its_facts_are_real(
        shared_corpus: Path) -> None:
    assert len(HELD_OUT_2) >= 45
    others = {q.text.lower() for q in (*QUESTIONS, *HELD_OUT)}
    assert not {q.text.lower() for q in HELD_OUT_2} & others
    roots = {"shared": shared_corpus, "bundled": bundled_datasheets_dir()}
    for q in (*HELD_OUT_2, *QUESTIONS):
        texts = [(roots[q.corpus] / s).read_text().lower() for s in q.source.split("|")]
        assert any(q.fact.lower() in t for t in texts), q


def test_the_third_held_out_set_shares_no_question_with_the_others_and_its_facts_are_real(
        shared_corpus: Path) -> None:
    assert len(HELD_OUT_3) >= 60
    others = {q.text.lower() for q in (*QUESTIONS, *HELD_OUT, *HELD_OUT_2)}
    assert not {q.text.lower() for q in HELD_OUT_3} & others
    assert len({q.text.lower() for q in HELD_OUT_3}) == len(HELD_OUT_3)
    roots = {"shared": shared_corpus, "bundled": bundled_datasheets_dir()}
    for q in HELD_OUT_3:
        texts = [(roots[q.corpus] / s).read_text().lower() for s in q.source.split("|")]
        assert any(q.fact.lower() in t for t in texts), q


def test_the_fourth_held_out_set_shares_no_question_with_the_others_and_its_facts_are_real(
        shared_corpus: Path) -> None:
    assert len(HELD_OUT_4) >= 60
    others = {q.text.lower() for q in (*QUESTIONS, *HELD_OUT, *HELD_OUT_2, *HELD_OUT_3)}
    assert not {q.text.lower() for q in HELD_OUT_4} & others
    assert len({q.text.lower() for q in HELD_OUT_4}) == len(HELD_OUT_4)
    assert {q.corpus for q in HELD_OUT_4} == {"shared", "bundled"}
    roots = {"shared": shared_corpus, "bundled": bundled_datasheets_dir()}
    for q in HELD_OUT_4:
        texts = [(roots[q.corpus] / s).read_text().lower() for s in q.source.split("|")]
        assert any(q.fact.lower() in t for t in texts), q


def _rates(questions: tuple[Question, ...], shared: Path) -> tuple[float, float, float]:
    rags = {"shared": HardwareRag.load(shared), "bundled": HardwareRag.load(bundled_datasheets_dir())}
    scores = [_score([(c.source, c.text) for c in rags[q.corpus].search(q.text, q.boards)], q) for q in questions]
    return tuple(sum(s[i] for s in scores) / len(questions) for i in range(3))  # type: ignore[return-value]


def test_tuning_set_meets_the_ranking_targets(shared_corpus: Path) -> None:
    hit1, hit3, within = _rates(QUESTIONS, shared_corpus)
    assert hit1 >= 0.90 and hit3 >= 0.96 and within >= 0.96, (hit1, hit3, within)


def test_held_out_set_stays_at_its_measured_level(shared_corpus: Path) -> None:
    """Regression floor one question under the level measured when the ranking changes landed (see BENCHMARKS.md)."""
    hit1, hit3, within = _rates(HELD_OUT, shared_corpus)
    assert hit1 >= 0.90 and hit3 >= 0.94 and within >= 0.96, (hit1, hit3, within)


def test_a_chip_pin_name_points_at_the_boards_that_have_it(shared_corpus: Path) -> None:
    rag = HardwareRag.load(shared_corpus)
    assert "nucleo-f401re" in rag.pin_boards("PA5 alternate functions", ("rpi-4b",))
    assert "rpi-pico" not in rag.pin_boards("PA5 alternate functions")
    assert "rpi-pico" in rag.pin_boards("what does GP17 do")
    assert "nrf52840dk" in rag.pin_boards("P0.13 polarity")
    got = rag.search("PA5 alternate functions")
    assert got[0].board != "rpi-pico"
    assert any(c.source.startswith("nucleo-") and "PA5" in c.text and "SPI1 SCK" in c.text for c in got[:3])


def test_a_pi_add_on_comes_after_a_configured_board_of_another_kind(shared_corpus: Path) -> None:
    rag = HardwareRag.load(shared_corpus)
    # a Nucleo's pins are PA5, a HAT's the Pi's GPIO17: the HAT's LED table does not answer for the Nucleo
    assert rag.search("which led can i blink and on what pin", ("nucleo-g071rb",))[0].source == "nucleo-g071rb.md"
    assert rag.search("which led can i blink and on what pin")[0].source != "nucleo-g071rb.md"
    # unless the configured board has nothing on the question's words: the only relay board there is answers
    assert rag.search("relay board third relay pin", ("nucleo-f401re",))[0].source == "automation-hat.md"
    # and a Pi configured keeps its HATs
    assert rag.search("which led can i blink and on what pin", ("rpi-4b",))[0].source.endswith("hat-pro.md")


def test_a_bare_pin_number_on_an_arduino_numbered_board_is_its_digital_pin(shared_corpus: Path) -> None:
    from edge_agent.rag.query import bare_pin

    assert bare_pin("attachInterrupt number for pin 21?") == "d21"
    assert bare_pin("what is on physical pin 12") is None and bare_pin("header pin 8") is None
    rag = HardwareRag.load(shared_corpus)
    # the Uno numbers its digital pins D0-D19: "pin 3" is D3, whose row names its timer
    assert "Timer2 B (OC2B)" in rag.search("uno which timer generates pwm on pin 3")[0].text
    assert "D21 -> 2" in rag.search("attachInterrupt number for pin 21?", ("arduino-mega2560",))[0].text
    # a Pi numbers places on its header: "pin 3" there is the header map's row 3, no D3
    assert rag.search("what is on pin 3", ("rpi-4b",))[0].source == "rpi-gpio.txt"


def test_a_chip_name_typed_in_two_words_finds_what_its_one_word_finds(shared_corpus: Path) -> None:
    from edge_agent.rag.wording import split_names

    assert split_names("rp 2040 adc pins") == ["rp2040"] and split_names("pi 5 uart 2 pins") == []
    rag = HardwareRag.load(shared_corpus)
    assert rag.search("atmega 328p sram")[0].source == rag.search("atmega328p sram")[0].source == "arduino-nano.md"
    assert rag.search("rp 2040 adc pins")[0].source == "rpi-pico.md"
    # a part number typed apart between two halves of letters and digits
    assert split_names("vl53 l0x address") == ["vl53l0x"]


def test_pin_families_name_the_hosts_a_file_fits() -> None:
    from edge_agent.rag.boards import pin_families

    assert pin_families(["GPIO17", "GPIO4"]) == {"gpio"}
    assert pin_families(["PA5", "PB3", "D13", "A0"]) == {"pa", "pb"}  # Arduino header names are not chip pins
    assert pin_families(["GP17", "P0.13", "5", "VDD"]) == {"gp", "p"}


def test_a_question_without_a_chip_pin_name_does_not_build_the_pin_index(tmp_path: Path) -> None:
    """The pin index of a large library costs hundreds of MiB: a search naming no board and no chip pin
    must not build it (only one naming a pin like PL5 can use it)."""
    _write(tmp_path, "widget-board.md", "# Widget\n\n## Port map\n\n| Signal | MCU pin |\n| --- | --- |\n"
           "| LAMP | PL5 |\n\nThe lamp driver output has alternate functions: timer output.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("lamp driver alternate functions")
    assert rag._pin_index is None
    assert rag.pin_boards("PL5 alternate functions") == ["widget-board"]
    assert rag._pin_index is not None


def test_a_pin_named_only_in_a_datasheet_finds_that_board(tmp_path: Path) -> None:
    _write(tmp_path, "widget-board.md", "# Widget\n\n## Port map\n\n| Signal | MCU pin |\n| --- | --- |\n"
           "| LAMP | PL5 |\n\nThe lamp driver output has alternate functions: timer output.\n")
    _write(tmp_path, "other.md", "# Other board\n\n## Alternate functions\n\nAlternate functions of the timer "
           "pins, alternate functions listed per pin, functions and alternate uses.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.pin_boards("PL5 alternate functions") == ["widget-board"]
    assert rag.search("PL5 alternate functions")[0].source == "widget-board.md"


def test_pin_alias_sections_yield_to_the_prose_and_tables_that_explain_the_pin(tmp_path: Path) -> None:
    _write(tmp_path, "kit.md", "# Kit\n\n## Buttons\n\n| Label | Pin |\n| --- | --- |\n| Button 3 | P0.24 |\n\n"
           "Buttons are active low.\n\n## Pin Aliases\n\nbutton3: P0.24\nsw2: P0.24\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("P0.24 button")[0].heading == "Kit > Buttons"


def test_second_held_out_set_stays_at_its_measured_level(shared_corpus: Path) -> None:
    """Regression floor one question under the level measured when this round's ranking landed (see
    BENCHMARKS.md); the set's own targets (0.92 / 0.98 / 0.97) are reported there, not asserted."""
    hit1, hit3, within = _rates(HELD_OUT_2, shared_corpus)
    assert hit1 >= 0.85 and hit3 >= 0.97 and within >= 0.97, (hit1, hit3, within)


def test_third_held_out_set_stays_at_its_measured_level(shared_corpus: Path) -> None:
    """Regression floor one question under the level measured when this round's ranking landed (see
    BENCHMARKS.md); the set's own targets (0.92 / 0.98 / 0.97) are reported there, not asserted."""
    hit1, hit3, within = _rates(HELD_OUT_3, shared_corpus)
    assert hit1 >= 0.89 and hit3 >= 0.97 and within >= 0.97, (hit1, hit3, within)


def test_fourth_and_fifth_held_out_sets_stay_at_their_measured_level(shared_corpus: Path) -> None:
    """Regression floors one question under the level measured when the pin-range and pin-row rules landed
    (both sets were measured once in earlier rounds and are tuning questions now)."""
    hit1, hit3, within = _rates(HELD_OUT_4, shared_corpus)
    assert hit1 >= 0.87 and hit3 >= 0.97 and within >= 0.97, (hit1, hit3, within)
    hit1, hit3, within = _rates(HELD_OUT_5, shared_corpus)
    assert hit1 >= 0.87 and hit3 >= 0.94 and within >= 0.96, (hit1, hit3, within)


def test_a_pi_models_name_leads_to_the_shared_header_file_not_to_other_files_naming_the_model(
        tmp_path: Path) -> None:
    _write(tmp_path, "rpi-gpio.md", "# 40-pin header\n\n## I2C\n\nEnable the user I2C bus with "
           "dtparam=i2c_arm=on, then list devices with i2cdetect -y 1.\n")
    _write(tmp_path, "weather-phat.md", "# Weather pHAT\n\nA board in the Pi Zero 2 W footprint.\n\n## Setup\n\n"
           "Enable I2C in raspi-config first; the Zero 2 W then finds the sensor at 0x77.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("enable i2c on a zero 2 w", ["rpi-zero-2w"])[0].source == "rpi-gpio.md"
    assert rag.search("enable i2c on a zero 2 w")[0].source == "rpi-gpio.md"  # the model named, no scope


def test_a_gpio_name_counts_as_held_by_a_row_numbered_like_it_in_a_gpio_table() -> None:
    from edge_agent.rag.query import Candidate, rerank, weigh_exact

    held = {1: {"gpio22", "gpio"}, 2: {"22", "gpio"}, 3: {"22", "uart"}, 4: {"gpio", "23"}}
    found = [Candidate(1.0, "a.md", 10 - i, i, "rpi-4b") for i in (4, 3, 2, 1)]
    weigh_exact(found, ["gpio22"], lambda t, cid: t in held[cid], lambda rel: ())
    order = [c.cid for _, c in rerank(found, 4)]
    assert set(order[:2]) == {1, 2}  # the pin's name, or its number under a GPIO column


def test_a_long_best_result_is_cut_to_the_rows_that_answer_with_their_table_header(tmp_path: Path) -> None:
    rows = "".join(f"| {n} | GPIO{n} | plain line number {n} of the header |\n" for n in range(1, 41))
    _write(tmp_path, "header.md", "# Header\n\n## Map\n\n| Phys | BCM | Role |\n| --- | --- | --- |\n" + rows
           + "\nGround pins: 6, 9, 14, 20, 25, 30, 34 and 39.\n")
    _write(tmp_path, "notes.md", "# Notes\n\n## Short\n\nGPIO17 is a plain line of the header.\n")
    rag = HardwareRag.load(tmp_path)
    full = rag.read("header.md", "Map")
    got = rag.search("GPIO17 header role phys bcm", limit=5)
    top = got[0]
    assert top.heading == "Header > Map" and len(full) > 2000
    assert len(top.text) <= 950
    lines = top.text.splitlines()
    assert lines[:2] == ["| Phys | BCM | Role |", "| --- | --- | --- |"]  # the header of the row's table
    assert "| 17 | GPIO17 | plain line number 17 of the header |" in lines and "…" in lines
    assert "Ground pins" in rag.search("which are the ground pins", limit=1)[0].text
    assert any(c.text == "GPIO17 is a plain line of the header." for c in got)  # a short section comes whole


def test_a_files_overview_yields_to_its_section_that_holds_the_fact(tmp_path: Path) -> None:
    _write(tmp_path, "buzzer-hat.md", "# Buzzer HAT\n\nA teaching HAT with a buzzer and a button.\n\n"
           "## Header usage\n\n| Part | BCM | Notes |\n| --- | --- | --- |\n| Buzzer | GPIO5 | active high, "
           "driven through a transistor from the header |\n| Button | GPIO25 | pulled up on the board |\n")
    got = HardwareRag.load(tmp_path).search("buzzer hat buzzer pin")
    assert got[0].heading == "Buzzer HAT > Header usage"
    alone = tmp_path / "solo"
    _write(alone, "note.md", "# Buzzer note\n\nThe buzzer sits on GPIO5.\n")
    assert HardwareRag.load(alone).search("buzzer pin")[0].heading == "Buzzer note"  # a file with one chunk


def test_a_question_asking_for_a_voltage_finds_the_line_that_states_one(tmp_path: Path) -> None:
    # "voltage" is written nowhere: the answer is the line with values in volts, not the section naming the part
    # most often
    _write(tmp_path, "hx20.md", "# HX20 humidity sensor\n\n## I2C address\n\nThe HX20 answers at 0x44 with ADDR "
           "low and at 0x45 with ADDR high. The HX20 library takes the address as its\nfirst argument.\n\n## Notes\n\n"
           "- Supply 2.4 V to 5.5 V, so one part runs from 3.3 V and 5 V boards.\n"
           "- The heater raises the die temperature by a few degrees.\n")
    got = HardwareRag.load(tmp_path).search("what voltage does the hx20 need")
    assert got[0].heading == "HX20 humidity sensor > Notes"


def test_a_question_about_the_board_as_a_whole_lets_the_overview_that_sums_it_up_come_first(tmp_path: Path) -> None:
    # The board's overview states its package; a soldering note shares both words without stating it. Asked about
    # the board as a whole, the overview competes on its score; asked for a value a table row holds (a pin), the
    # same overview counts half beside its file's other section.
    _write(tmp_path, "devboard.md", "# Devboard Xeno\n\nThe XC100 microcontroller sits in a QFN48 package on the "
           "Xeno devboard.\n\n## LEDs and buttons\n\nTwo lines of the Xeno drive the LED and read the button:\n\n"
           "| Signal | Pin |\n| --- | --- |\n| LED1 | P0.13 |\n| BUTTON1 | P0.11 |\n")
    _write(tmp_path, "soldering.md", "# Soldering notes\n\n## Hand soldering\n\nReworking a leadless package on "
           "boards such as the Xeno needs hot air, not an iron; check the package drawing and the stencil first.\n")
    rag = HardwareRag.load(tmp_path)
    assert [(c.source, c.heading) for c in rag.search("xeno package")][:2] == [
        ("devboard.md", "Devboard Xeno"), ("soldering.md", "Soldering notes > Hand soldering")]
    got = rag.search("xeno package pin")
    assert got[0].heading == "Devboard Xeno > LEDs and buttons"
    assert [c.heading for c in got].index("Devboard Xeno") > 1


# --- the answer window ------------------------------------------------------------------------------------


def _long_table(name: str, rows: int = 40) -> str:
    body = "\n".join(f"| {name}{i} | line {i} of the {name} table, a plain general purpose input |"
                     for i in range(rows))
    return f"| Signal | Use |\n| --- | --- |\n{body}\n"


def test_every_long_result_is_cut_to_its_answering_lines_not_only_the_first(tmp_path: Path) -> None:
    _write(tmp_path, "alpha.md", "# Alpha\n\n## Pins\n\n" + _long_table("XA").replace(
        "| XA17 | line 17", "| XA17 | the frame sync line 17"))
    _write(tmp_path, "beta.md", "# Beta\n\n## Pins\n\n" + _long_table("XB").replace(
        "| XB23 | line 23", "| XB23 | the frame sync line 23"))
    got = HardwareRag.load(tmp_path).search("frame sync line")
    assert {c.source for c in got[:2]} == {"alpha.md", "beta.md"}
    for c in got[:2]:
        assert "frame sync" in c.text and "…" in c.text
        assert len(c.text) < 1000 < len(HardwareRag.load(tmp_path).read(c.source, "Pins"))


def test_the_window_finds_a_pin_or_number_as_a_whole_token() -> None:
    from edge_agent.rag.query import exact_terms, window

    table = "| Pin | Function |\n| --- | --- |\n" + "\n".join(
        f"| {i} | {'I2C0 SDA' if i == 30 else 'general purpose input output line'} |" for i in range(60))
    terms = tokens("what does pin 1 do")
    cut = window(table, terms, exact_terms(terms))
    assert "| 1 | general" in cut
    assert not any(f"| {i} |" in cut for i in (11, 12, 21, 31, 41))  # 1 is not inside 11, 21 or 41
    terms = tokens("which pin has i2c")
    cut = window(table, terms, exact_terms(terms))
    assert "| 30 | I2C0 SDA |" in cut  # a peripheral family is found in its numbered instances


def test_the_window_knows_the_spellings_the_tokenizer_folds_together() -> None:
    from edge_agent.rag.query import exact_terms, window

    rows = "\n".join(f"| 0x{i:02X} | REG_{i} | filler words about nothing in particular |" for i in range(64))
    table = f"| Register | Name | Notes |\n| --- | --- | --- |\n{rows}\n"
    terms = tokens("register 0x0D")
    assert terms[-1] == "0xd" and "| 0x0D | REG_13 |" in window(table, terms, exact_terms(terms))
    prose = "\n".join(f"Line {i}: nothing here." for i in range(60)) + "\nThe fan switch is BCM17.\n"
    terms = tokens("what is on GPIO17")
    assert "BCM17" in window(prose * 2, terms, exact_terms(terms))


def test_the_window_shows_a_wrapped_sentence_from_its_start() -> None:
    from edge_agent.rag.query import exact_terms, window

    rows = "\n".join(f"| 0x{i:02X} | REG_{i} | filler words about nothing in particular |" for i in range(40))
    text = (f"| Register | Name | Notes |\n| --- | --- | --- |\n{rows}\n\n"
            "Power-up gotcha: the part starts in sleep mode. Write 0x00\n"
            "(or pick another clock source first, as the clock table shows) to\n"
            "the power register before expecting data; otherwise every data register reads 0.\n\n"
            "- the sensor ignores every write\n  until its unlock sequence\n  is sent to the KEY latch\n")
    terms = tokens("sensor reads 0 on every axis")
    cut = window(text, terms, exact_terms(terms))
    # the line that matches is the sentence's last; its first line says what is wrong
    assert "the part starts in sleep mode" in cut
    terms = tokens("what goes to the KEY latch")
    cut = window(text, terms, exact_terms(terms))
    # a list item is followed back to its bullet, and no further
    assert "- the sensor ignores every write" in cut and "before expecting data" not in cut


def test_a_gpio_table_numbering_its_rows_is_found_by_the_gpio_name(tmp_path: Path) -> None:
    from edge_agent.rag.chunker import row_pins

    rows = "\n".join(f"| {i} | SD{i} CLK | UART{i % 6} TXD | I2C{i % 7} SDA |" for i in range(28))
    table = f"| GPIO | ALT0 | ALT4 | ALT5 |\n| --- | --- | --- | --- |\n{rows}\n"
    assert row_pins(table)[:3] == ["gpio0", "gpio1", "gpio2"] and len(row_pins(table)) == 28
    assert row_pins("| Pin | Use |\n| --- | --- |\n| 4 | LED |\n") == []  # only under a GPIO column
    _write(tmp_path, "soc.md", "# SoC\n\n## Pin mux\n\n" + table + "\n## UART notes\n\n"
           "The UART function of a pin is chosen in its function select field; each UART function has a "
           "number, and a UART function set on two pins at once is an error.\n")
    got = HardwareRag.load(tmp_path).search("GPIO22 uart function")
    assert got[0].heading == "SoC > Pin mux" and "| 22 | SD22 CLK | UART4 TXD |" in got[0].text


def test_a_register_address_is_looked_up_in_the_register_map_not_the_bus_address(tmp_path: Path) -> None:
    _write(tmp_path, "rtc.md", "# RTC chip with temperature sensor\n\n## I2C address\n\nThe address is fixed at "
           "0x68; the address pins are absent.\n\n## Register map\n\n| Register | Name | Notes |\n| --- | --- | --- |\n"
           "| 0x00 | Seconds | BCD |\n| 0x01 | Minutes | BCD |\n| 0x11 | Temperature MSB | signed |\n"
           "| 0x12 | Temperature LSB | fraction |\n")
    got = HardwareRag.load(tmp_path).search("temperature register address")
    assert got[0].heading == "RTC chip with temperature sensor > Register map"


def test_an_edit_to_the_vocabulary_rebuilds_a_persisted_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from edge_agent.rag import store

    _write(tmp_path / "sheets", "a.md", "# A\n\n## Pins\n\nLED on PA5.\n")
    first = HardwareRag.load(tmp_path / "sheets", index_dir=tmp_path / "index")
    assert first.stats["indexed"] == 1
    first.close()
    again = HardwareRag.load(tmp_path / "sheets", index_dir=tmp_path / "index")
    assert again.stats["indexed"] == 0  # unchanged: reused
    again.close()
    monkeypatch.setattr(store, "_VOCABULARY_DIGEST", "another vocabulary")
    assert HardwareRag.load(tmp_path / "sheets", index_dir=tmp_path / "index").stats["indexed"] == 1


def test_the_can_bus_is_a_term_while_the_word_can_stays_a_stop_word(tmp_path: Path) -> None:
    assert "can" in tokens("f446 CAN pins") and "can" in tokens("which pins for the can bus")
    assert "can" in tokens("CAN1 RX / TX") and tokens("you can use it") == ["use"]
    _write(tmp_path, "mcu.md", "# MCU board\n\n## I2C\n\nThe I2C pins are PB8 and PB9; you can use these pins "
           "for sensors, and the pins can be remapped to other pins.\n\n## Buses\n\nThe CAN1 RX and TX pins are "
           "PB12 and PB13.\n")
    assert HardwareRag.load(tmp_path).search("CAN pins")[0].heading == "MCU board > Buses"


def test_a_dev_path_answers_a_question_about_the_device_name(tmp_path: Path) -> None:
    assert tokens("/dev/ttyACM0") == ["device", "ttyacm0"]
    _write(tmp_path, "kit.md", "# Kit\n\n## Serial\n\nThe debug UART shows up as /dev/ttyACM0 on Linux.\n\n"
           "## Names\n\nEvery pin has a name; the name of the board is on its label, the serial name on its box.\n")
    assert HardwareRag.load(tmp_path).search("serial device name on linux")[0].heading == "Kit > Serial"


def test_everyday_words_imu_ram_and_checksum_meet_the_datasheet_terms(tmp_path: Path) -> None:
    assert tokens("imu") == tokens("gyroscope") and tokens("RAM") == tokens("memory")
    assert tokens("checksum") == tokens("CRC")
    _write(tmp_path, "motion.md", "# Motion sensor - accelerometer and gyroscope\n\n## Power\n\nAfter power up "
           "the part is asleep: clear the sleep bit, or every data register reads zero.\n")
    _write(tmp_path, "clock.md", "# Clock chip\n\n## Power\n\nAfter power up the registers read zero until the "
           "oscillator runs.\n")
    assert HardwareRag.load(tmp_path).search("imu reads zero after power up")[0].source == "motion.md"


# --- a section about the question's function, a register table for a bit ---------------------------------


def _header_file() -> str:
    roles = {3: "I2C1 SDA", 5: "I2C1 SCL", 8: "UART0 TX", 10: "UART0 RX", 19: "SPI0 MOSI", 21: "SPI0 MISO",
             23: "SPI0 SCLK", 24: "SPI0 CE0", 26: "SPI0 CE1", 32: "PWM0"}
    role = {n: "spi chip select" if "CE" in name else "plain" for n, name in roles.items()}
    rows = "".join(f"| {n} | {roles.get(n, f'GPIO{n + 40}')} | GPIO{n + 40} | {role.get(n, 'plain')} |\n"
                   for n in range(1, 41))
    return ("# Expansion header\n\n## Header map\n\n| Pin | Name | GPIO | Role |\n| --- | --- | --- | --- |\n" + rows
            + "\n## SPI\n\nSPI0 is off until enabled in the boot config.\n\n- CE0: GPIO64, pin 24\n"
            "- CE1: GPIO66, pin 26\n\n## UART\n\nThe console sends on GPIO48 (TXD, pin 8) and receives on GPIO50 (RXD, "
            "pin 10); both are 3.3 V only, and the console must be turned off before another device uses them.\n")


def test_a_question_naming_a_bus_prefers_that_buses_section_over_the_files_general_pin_map(tmp_path: Path) -> None:
    from edge_agent.rag.query import heading_functions

    assert heading_functions("Header > PCM / I2S audio") == {"pcm", "i2s"}
    assert heading_functions("Board > Extra SPI0 controllers") == {"spi"}
    assert heading_functions("Board > General purpose clocks and 1-Wire") == {"onewire"}
    assert heading_functions("SPI notes > Header map") == set()  # only the section's own heading counts
    _write(tmp_path, "header.md", _header_file())
    rag = HardwareRag.load(tmp_path)
    assert rag.search("uart tx header pin")[0].heading == "Expansion header > UART"
    assert rag.search("spi0 ce1 header pin")[0].heading == "Expansion header > SPI"
    # a question naming no bus still gets the pin map for a pin's row
    assert rag.search("what is on pin 32")[0].heading == "Expansion header > Header map"


def _part_file() -> str:
    return ("# Servo driver chip\n\nA 16-channel PWM chip on I2C.\n\n## Register map\n\n"
            "| Register | Name | Bits |\n| --- | --- | --- |\n"
            "| 0x00 | MODE1 | RESTART 0x80, SLEEP 0x10, ALLCALL 0x01 |\n"
            "| 0x01 | MODE2 | INVRT 0x10, OUTDRV 0x04 |\n| 0x05 | ALLCALLADR | all call address |\n"
            "| 0xFE | PRE_SCALE | frequency prescaler |\n\n## Changing the frequency\n\n"
            "Set the sleep bit of the chip first: the prescaler is written only while the chip sleeps. Then clear "
            "sleep, wait for the oscillator and restart. A chip left asleep outputs nothing.\n")


def test_a_question_asking_for_a_bit_prefers_the_register_table_over_prose_naming_it(tmp_path: Path) -> None:
    from edge_agent.rag.query import is_code_table

    assert is_code_table(_part_file())
    assert not is_code_table("| Mode | Use |\n| --- | --- |\n| 0x1C | off |\n| 1 Hz | 0x00 |\n")  # two hex rows
    assert is_code_table("| Command | Code |\n| --- | --- |\n| reset | 0x30A2 |\n| heater on | 0x306D |\n"
                         "| heater off | 0x3066 |\n")  # a command table: the code in a later column
    _write(tmp_path, "servo-chip.md", _part_file())
    rag = HardwareRag.load(tmp_path)
    assert rag.search("servo chip sleep bit")[0].heading == "Servo driver chip > Register map"
    # without a bit, register, flag or command asked for, the prose on the procedure answers
    assert rag.search("servo chip change frequency while asleep")[0].heading == \
        "Servo driver chip > Changing the frequency"


def test_a_bare_small_number_or_a_bus_family_is_no_exact_evidence() -> None:
    from edge_agent.rag.query import Candidate, rerank, weigh_exact

    # chunk 1: a 40-row pin table (holds every number 1-40); chunk 2: the chip-select section ("CE1: GPIO7, pin 26")
    held = {1: {"spi", "cs", "pin", "1", "26"}, 2: {"spi", "cs", "pin", "ce1", "26"}}

    def order(exact: list[str]) -> list[int]:
        found = [Candidate(1.0, "header.md", 1, 1, None), Candidate(1.1, "header.md", 2, 2, None)]
        weigh_exact(found, exact, lambda t, cid: t in held[cid], lambda rel: ())
        return [c.cid for _, c in rerank(found, 2)]

    assert order(["1"]) == [2, 1]  # "chip select 1": the table's row number 1 earns no bonus, the scores decide
    assert order(["gpio7"]) == [2, 1]
    held[1].add("gpio7")
    assert order(["gpio7"]) == [1, 2]  # a pin name with its digits still earns it
    held[1].add("i2c")
    assert order(["i2c"]) == [2, 1]  # a bus family's name is the topic, not an exact token
    held[1].add("i2c1")
    assert order(["i2c1"]) == [1, 2]  # an instance of the bus is


# --- a configured board and the chip pins of other boards --------------------------------------------------


def test_a_chip_pin_the_configured_board_lacks_points_at_the_boards_that_have_it(tmp_path: Path) -> None:
    """A Pi configured and a question about PA5: the Pi has no port A, so the pin is the Nucleo's and the
    configured board's scope must not bury the Nucleo's row."""
    _write(tmp_path, "nucleo-f401re.md",
           "# Nucleo notes\n\n## Port A\n\nPA5 alternate functions: SPI1 SCK, TIM2 CH1; the user LED.\n")
    _write(tmp_path, "rpi-4b.md", "# Pi 4 notes\n\n## Alternate functions\n\nAlternate functions of GPIO17: the "
           "alternate functions are listed per pin, functions ALT0 to ALT5.\n")
    rag = HardwareRag.load(tmp_path)
    assert "nucleo-f401re" in rag.pin_boards("PA5 alternate functions", ("rpi-4b",))
    assert rag.search("PA5 alternate functions", ("rpi-4b",))[0].source == "nucleo-f401re.md"
    # a pin the configured board has is that board's: it points nowhere else
    _write(tmp_path, "other-board.md", "# Other\n\n## Port map\n\n| Signal | MCU pin |\n| --- | --- |\n"
           "| FAN | GPIO17 |\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.pin_boards("GPIO17 alternate functions", ("rpi-4b",)) == []
    assert "other-board" in rag.pin_boards("GPIO17 alternate functions")


def test_a_chip_pin_the_configured_boards_notes_write_stays_theirs_though_the_board_lacks_it(tmp_path: Path) -> None:
    """PB11 with the LQFP64 F446RE configured: the chip has no PB11, but its notes say so; another Nucleo that has
    the pin is not what a user of the configured board asks about."""
    _write(tmp_path, "nucleo-f446re.md", "# F446RE notes\n\n## Package\n\nPB11 does not exist on the STM32F446RE in "
           "LQFP64: its morpho header position is not connected and does nothing.\n")
    _write(tmp_path, "nucleo-g071rb.md", "# G071RB notes\n\n## Morpho header\n\n| Pin | Function |\n| --- | --- |\n"
           "| PB11 | I2C2 SDA on the morpho header |\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.pin_boards("PB11 on the morpho header does nothing", ("nucleo-f446re",)) == []
    assert rag.search("PB11 on the morpho header does nothing", ("nucleo-f446re",))[0].source == "nucleo-f446re.md"
    # without the configured board, the pin still points at the board that has it
    assert rag.pin_boards("PB11 on the morpho header does nothing")


def test_a_pin_of_the_configured_board_does_not_build_the_pin_index(tmp_path: Path) -> None:
    """GPIO17 with a Pi configured is the Pi's own pin: the (large) pin index is not needed to know that."""
    _write(tmp_path, "rpi-4b.md", "# Pi 4 notes\n\n## Alternate functions\n\nGPIO17 alternate functions.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("GPIO17 alternate functions", ("rpi-4b",))
    assert rag._pin_index is None


def test_within_a_file_the_section_holding_the_named_chip_pin_answers(tmp_path: Path) -> None:
    rows = "".join(f"| A{i} | PF{i} | A{i + 8} | PK{i} |\n" for i in range(8))
    _write(tmp_path, "big-board.md", "# Big board\n\n## Key specifications\n\nSixteen analog inputs. Each analog "
           "input number is printed beside its pin; analog input numbers run from A0 to A15.\n\n## Port mapping\n\n"
           "| Analog input | Port | Analog input | Port |\n| --- | --- | --- | --- |\n" + rows)
    for i, part in enumerate(("adc chip", "sensor", "light sensor", "motor driver", "display")):
        _write(tmp_path, f"part-{i}.md", f"# A {part}\n\n## Inputs\n\nThe {part} reads one analog input; its output "
               "goes to a digital pin.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("which analog input number is PF7")[0].heading == "Big board > Port mapping"
    # a question naming no chip pin still gets the summary
    assert rag.search("analog input number")[0].heading == "Big board > Key specifications"


def test_a_question_about_another_board_sets_the_configured_board_aside(tmp_path: Path) -> None:
    """With a Pi configured, a question naming the F401 (or a pin only other boards have) is about that
    board: the Pi's chunks keep no boost over it. Naming the Pi too keeps both in the race."""
    _write(tmp_path, "rpi-4b.md", "# Pi 4 notes\n\n## UART pins\n\nThe UART pins: UART0 TX and RX pins, UART2 to "
           "UART5 on the extra UART pins, UART console pins.\n")
    _write(tmp_path, "nucleo-f401re.md", "# Nucleo notes\n\n## Serial\n\nUSART2 on PA2 and PA3 is the virtual COM "
           "port; USART1 on PA9 and PA10 is free for a UART.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("uart pins on the f401", ("rpi-4b",))[0].source == "nucleo-f401re.md"
    assert rag.search("PA9 uart pins", ("rpi-4b",))[0].source == "nucleo-f401re.md"
    assert rag.search("uart pins", ("rpi-4b",))[0].source == "rpi-4b.md"
    assert {c.source for c in rag.search("uart pins on the pi 4 and the f401", ("rpi-4b",))[:2]} == \
        {"rpi-4b.md", "nucleo-f401re.md"}


def test_a_chip_only_one_board_carries_names_that_board_and_stays_a_search_word() -> None:
    names = nicknames(["rpi-4b", "rpi-5", "rpi-gpio", "nucleo-f401re"])
    assert detect("RP1 function F8 on GPIO9", names) == ["rpi-5"]
    assert detect("bcm2711 extra uarts", names) == ["rpi-4b"]
    assert detect("stm32f401 supply range", names) == ["nucleo-f401re"]
    assert content_terms(tokens("rp1 f8 gpio9"), ["rp1"]) == tokens("rp1 f8 gpio9")
    assert content_terms(tokens("pi 5 gpio9"), ["pi 5"]) == tokens("gpio9")


def test_the_window_finds_a_word_in_the_spellings_the_vocabulary_folds_into_it() -> None:
    from edge_agent.rag.query import exact_terms, window
    from edge_agent.rag.text import spellings

    assert "mic" in spellings("microphone") and spellings("no-such-term") == ()
    rows = "\n".join(f"| {i} | SD{i} DAT | {'MIC CLK' if i == 25 else 'UART' + str(i % 5) + ' RXD'} |"
                     for i in range(40))
    table = f"| GPIO | F0 | F3 |\n| --- | --- | --- |\n{rows}\n"
    terms = tokens("microphone clock gpio")
    assert "microphone" in terms
    assert "| 25 | SD25 DAT | MIC CLK |" in window(table, terms, exact_terms(terms))


def test_a_chip_pin_row_beats_another_files_chunk_without_the_pin(tmp_path: Path) -> None:
    """"P0.28 analog channel": the kit's header row naming P0.28 answers, not a HAT's overview of its analog
    channels, however often that repeats the question's other words."""
    rows = "".join(f"| A{i} | P0.{i + 2:02d} | AIN{i} |\n" for i in range(6)) + "| A7 | P0.28 | AIN4 |\n"
    _write(tmp_path, "widget-kit.md", "# Widget kit\n\n## Arduino header\n\n| Arduino | Pin | Notes |\n"
           "| --- | --- | --- |\n" + rows + "\nDigital pins follow on the other header row, with the buttons, "
           "the LEDs and the debugger's lines listed in the board's user guide.\n")
    _write(tmp_path, "sensor-hat.md", "# Sensor HAT\n\nAn add-on with analog inputs: three analog channels, each "
           "analog channel rated for 24 V, analog channel readings over I2C.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.pin_boards("P0.28 analog channel") == ["widget-kit"]
    assert rag.search("P0.28 analog channel")[0].source == "widget-kit.md"


def test_a_question_naming_a_board_prefers_it_to_parts_it_does_not_name(tmp_path: Path) -> None:
    """"zero 2 w power supply rating" is about the board's supply, not a sensor's supply pins."""
    _write(tmp_path, "rpi-zero-2w.md", "# Zero 2 W notes\n\n## LED and power\n\nThe ACT LED is GPIO29. Power "
           "through the micro-USB port: a 5 V 2.5 A supply; the second port is data.\n")
    _write(tmp_path, "sensor.md", "# Sensor\n\n## Supply pins\n\n| Signal | Use |\n| --- | --- |\n"
           "| VDD | core supply, main power supply |\n| VDDIO | I/O supply, power for the pins |\n"
           "| VBAT | backup power supply |\n| GND | ground |\n")
    for i in range(4):
        _write(tmp_path, f"other{i}.md", f"# Other {i}\n\nNotes about timers, registers and the bus {i}.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("zero 2 w power supply rating", ("rpi-zero-2w",))[0].source == "rpi-zero-2w.md"
    # a question naming no board lets the part's rows compete on score alone
    assert rag.search("power supply rating")[0].source == "sensor.md"
    # nor does naming a board hold back a part the question names beside it
    assert rag.search("sensor power supply on the zero 2 w")[0].source == "sensor.md"


def test_a_pin_range_in_prose_holds_each_pin_in_it(tmp_path: Path) -> None:
    """"crashed after using gpio 9": the paragraph on the flash pins GPIO6-GPIO11 answers, although it never
    writes GPIO9, not a bus table whose row names GPIO9."""
    from edge_agent.rag.query import range_pins

    assert {"gpio9", "d3", "pd3"} <= range_pins("Flash pins: GPIO6-GPIO11. D2-D7 = PD2-PD7")
    assert range_pins("1.8-3.6 V, addresses 0x40-0x7F") == frozenset()
    _write(tmp_path, "dev-board.md", "# Dev board\n\n## Pins to avoid\n\n- Flash pins: GPIO6-GPIO11 are wired to "
           "the SPI flash; using them crashes the chip.\n- Strapping pins: GPIO0, GPIO2, GPIO12 and "
           "GPIO15 set the boot mode.\n\n## Default bus pins\n\n| Bus | Pins | Notes |\n| --- | --- | --- |\n"
           "| UART0 | TX GPIO1, RX GPIO3 | console |\n| UART1 | TX GPIO10, RX GPIO9 | reserved |\n"
           "| I2C0 | SDA GPIO21, SCL GPIO22 | |\n| SPI2 | GPIO12-GPIO15 | |\n")
    for i in range(4):
        _write(tmp_path, f"other{i}.md", f"# Other {i}\n\nNotes about timers, registers and the bus {i}.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("which pins are flash, crashed after using gpio 9")[0].heading == "Dev board > Pins to avoid"
    # a question without that pin is unchanged: the bus table answers for the UART
    assert rag.search("uart1 pins")[0].heading == "Dev board > Default bus pins"


def test_the_line_holding_the_named_pin_and_another_question_word_answers(tmp_path: Path) -> None:
    """"GPIO27 adc channel": the header row "GPIO27, ADC2_CH7, TOUCH7" says it, not a touch-channel table
    listing GPIO27 in a row of its own without the ADC."""
    from edge_agent.rag.query import pin_row_words

    assert pin_row_words("| 12 | IO27 | GPIO27, ADC2_CH7 |", ["gpio27"], {"adc"})
    assert not pin_row_words("| TOUCH7 | GPIO27 |\nADC inputs are listed below.", ["gpio27"], {"adc"})
    assert not pin_row_words("| GPIO270 | ADC |", ["gpio27"], {"adc"})  # a pin is a whole token
    assert pin_row_words("| GPIO | F0 |\n| 27 | ADC1 |", ["gpio27"], {"adc"})  # a GPIO table's numbered row
    rows = "".join(f"| {i + 3} | IO{p} | GPIO{p}, ADC{1 if p > 31 else 2}_CH{i}, TOUCH{i} |\n"
                   for i, p in enumerate((4, 0, 2, 15, 13, 12, 14, 27)))
    _write(tmp_path, "dev-board.md", "# Dev board\n\n## Header J1\n\n| No. | Name | Functions |\n| --- | --- | --- |\n"
           + rows + "\n## Touch channels\n\nTen capacitive touch channels; a touch channel reads lower when "
           "touched.\n\n| Channel | GPIO |\n| --- | --- |\n| TOUCH7 | GPIO27 |\n| TOUCH8 | GPIO33 |\n"
           "| TOUCH9 | GPIO32 |\n")
    for i in range(4):
        _write(tmp_path, f"other{i}.md", f"# Other {i}\n\nNotes about timers, registers and the bus {i}.\n")
    rag = HardwareRag.load(tmp_path)
    assert rag.search("GPIO27 adc channel")[0].heading == "Dev board > Header J1"
    assert rag.search("GPIO27 touch channel")[0].heading == "Dev board > Touch channels"


PI_NOTES = ("# Pi notes\n\n## Header\n\n| BCM | Role |\n| --- | --- |\n| GPIO4 | GPCLK0, one-wire data |\n"
            "| GPIO14 | UART TX |\n\nGPIO4 and GPIO14 are plain 3.3 V inputs or outputs; i2c and spi sit on "
            "other pins.\n\n## Audio\n\nMost DAC HATs take their audio over I2S.\n")
ESP_NOTES = ("# ESP board notes\n\n## Pin functions\n\n| No. | Name | Functions |\n| --- | --- | --- |\n"
             "| 13 | IO4 | GPIO4, ADC2_CH0, TOUCH0 |\n| 12 | IO14 | GPIO14, ADC2_CH6, TOUCH6 |\n"
             "| 9 | IO25 | GPIO25, ADC2_CH8, DAC_1 |\n\n"
             "## Capacitive sensing\n\nTouch pads wake the chip from deep sleep.\n")


def test_a_configured_board_steps_aside_for_a_function_its_files_never_mention(tmp_path: Path) -> None:
    """With a Pi configured, 'GPIO4 touch pad number' asks for a touch channel: no Pi file mentions touch and the
    ESP32's row for GPIO4 writes TOUCH0, so that board answers; a word the Pi's files use keeps the question
    the Pi's, as does one the other board never writes on the pin's line; a word the Pi's files use away from any
    pin (DAC HATs) moves the question only as a numbered signal on the other board's pin line (DAC_1)."""
    _write(tmp_path, "rpi-4b.md", PI_NOTES)
    _write(tmp_path, "esp32-devkitc.md", ESP_NOTES)
    rag = HardwareRag.load(tmp_path)
    got = rag.search("GPIO4 touch pad number", ("rpi-4b",))
    assert got[0].source == "esp32-devkitc.md" and "TOUCH0" in got[0].text
    assert rag.search("GPIO14 capacitive touch channel", ("rpi-4b",))[0].source == "esp32-devkitc.md"
    # the Pi's notes name DAC HATs but never a DAC pin; the ESP32's GPIO25 row has the numbered signal DAC_1
    assert rag.search("GPIO25 dac channel", ("rpi-4b",))[0].source == "esp32-devkitc.md"
    assert rag.search("GPIO4 one-wire data", ("rpi-4b",))[0].source == "rpi-4b.md"  # the Pi's own words
    # "wake" is the ESP32's word, but not on GPIO4's line: the configured Pi still answers first
    assert rag.search("GPIO4 wake", ("rpi-4b",))[0].source == "rpi-4b.md"


def test_a_header_position_question_is_told_from_a_model_question() -> None:
    from edge_agent.rag.search import asks_position

    for q in ("spi1 miso pin", "pi 5 pin 40", "which physical pin carries GPIO22", "what pins does the fan use?"):
        assert asks_position(q), q
    for q in ("pi 5 how many pwm channels", "pwm on any pin of a pi 5", "pi 5 usb port current limit"):
        assert not asks_position(q), q


def test_a_named_pi_model_answers_from_its_own_note_and_a_header_position_from_the_shared_header(
        shared_corpus: Path) -> None:
    """The Pi 5's PWM is RP1's (its own note), where the header file shared by every model describes the older
    chips' two channels; the place of a pin on the header stays the shared file's answer."""
    rag = HardwareRag.load(shared_corpus)
    assert rag.search("pwm on any pin of a pi 5")[0].source == "rpi-5.md"
    assert rag.search("pi 5 infrared receiver function on gpio2")[0].source == "rpi-5.md"
    assert rag.search("which pin is GPIO22 on the pi zero 2 w")[0].source == "rpi-gpio.txt"


def test_a_configured_pi_model_the_question_also_names_answers_from_its_own_note(shared_corpus: Path) -> None:
    """With a Pi 5 configured, a question naming the Pi 5 is about what that model does differently (RP1's four
    PWM channels, its own note); the same question without the model's name still weighs the header file every
    model shares as the configured board's own."""
    rag = HardwareRag.load(shared_corpus)
    assert rag.search("pi 5 how many pwm channels", ["rpi-5"])[0].source == "rpi-5.md"
    assert rag.search("pi 5 enable the header serial console", ["rpi-5"])[0].source == "rpi-5.md"
    assert rag.search("hardware pwm channels", ["rpi-5"])[0].source == "rpi-gpio.txt"


def test_a_question_asking_for_an_alias_by_that_word_gets_the_alias_list(shared_corpus: Path) -> None:
    """The pin-alias sections weigh less than prose (they lack a pin's function and caveats), except when the
    question asks for an alias: then the alias line is the answer."""
    rag = HardwareRag.load(shared_corpus)
    first = rag.search("PMS5003 reset alias on the enviro plus")[0]
    assert first.source == "enviro-plus.md" and first.heading.endswith("Pin Aliases")
    assert not rag.search("PMS5003 reset pin on the enviro plus")[0].heading.endswith("Pin Aliases")


def test_a_header_place_finds_its_own_row_of_a_split_header_map(shared_corpus: Path) -> None:
    """The 40-pin header map is long enough to be split between chunks; "pin 14" is answered by the chunk
    holding the row that starts with 14, not by the other half of the map with the same words."""
    from edge_agent.rag.query import asked_place, holds_place

    assert asked_place("is pin 25 on the pi header a gpio") == "25"
    assert asked_place("J8-40 function") == "40"
    assert asked_place("pin 3 or pin 5 for sda") is None  # two places: neither row is the answer
    assert holds_place("Phys | Name\n25   | Ground | - |", "25") and not holds_place("| 125 | x |", "25")
    assert holds_place("| J8-40 | GPIO21 | PCM DOUT |", "40") and not holds_place("| J8-4 | 5V |", "40")
    rag = HardwareRag.load(shared_corpus)
    for question, place in (("what is pin 14 on the 40 pin header", "14"), ("is pin 9 a ground on the pi", "9"),
                            ("header pin 30 function", "30")):
        first = rag.search(question)[0]
        # the row counts within its own file only: a Pico's edge-pin table starting a row with 9 stays behind
        assert first.source == "rpi-gpio.txt" and holds_place(first.text, place), question


def test_a_named_pi_model_whose_notes_lack_the_other_words_still_answers_from_its_notes() -> None:
    """"zero 2 w ram": the model's name is set aside as text (the header file every model shares never writes it),
    but the Zero 2 W note says "512 MB", not RAM; rather than nothing, the model's own notes answer."""
    rag = HardwareRag.load(bundled_datasheets_dir())
    got = rag.search("zero 2 w ram")
    assert got and got[0].source == "rpi-zero-2w.md"
    assert any("512 MB" in c.text for c in got)


def test_a_question_naming_a_board_family_sets_a_configured_board_outside_it_aside() -> None:
    """An agent on a Nucleo asked "i2c bus device file on a pi" is asked about a Raspberry Pi, and one on a Pi asked
    about "the nucleo" about a Nucleo: the family word names no one board, but it takes the configured board's
    boost away as another board's name would."""
    from edge_agent.rag.boards import families
    from edge_agent.rag.search import Search

    rag = HardwareRag.load(bundled_datasheets_dir())
    for question in ("i2c bus device file on a pi", "spidev file for chip select 1 on the Pi"):
        assert rag.search(question, ["nucleo-f401re"])[0].source.startswith("rpi-"), question
    assert rag.search("usb serial device name of the nucleo on linux", ["rpi-4b"])[0].source.startswith("nucleo-")
    says = Search._says_other_family
    assert says(rag._search, "pi header pin 1", ["nucleo-f401re"])
    assert not says(rag._search, "pi header pin 1", ["rpi-4b"]) and not says(rag._search, "pi header", ["rpi-5"])
    assert not says(rag._search, "nucleo user led", ["nucleo-l476rg"])
    assert not says(rag._search, "spi pins", ["nucleo-f401re"]) and families("spi pins") == []
    assert families("raspberry pi pico adc pins") == []  # the Pico is no 40-pin Pi
