"""Bus roles in a pin name, and the other spellings of a name nobody wrote as it was typed.

A name is looked up as written first (:class:`edge_agent.pins.PinIndex`). When nothing answers to it, the
spellings below name the same signal the way another datasheet, silkscreen or core writes it, and the index
answers with a pin only when every one of them that resolves gives the same pin (never a pick between two):

* a bus signal's role in its other spelling: a UART's TX is its TXD and RX its RXD, an SPI clock is SCK, SCLK or
  CLK, its chip select CS, SS, NSS or CSn, MOSI is COPI and MISO CIPO (``UART2 TX`` where the table heads its
  column TXD, ``SPI0 SCLK`` where the board file says sck);
* a role written before its bus number, as AVR, Broadcom and Espressif pin names do (``TXD1`` is UART1's TXD,
  ``SDA1`` is I2C1's SDA, ``U2TXD`` is UART2's TXD);
* the Arduino core's ``PIN_`` prefix (``PIN_A0`` is A0);
* the PWM mark of an Arduino silkscreen (``~3`` is 3, ``~D3`` is D3);
* the board's user LED in words (``user LED``, ``built-in LED``, ``on-board LED``, or ``LED`` alone where no
  datasheet names a pin LED) is the Arduino core's ``LED_BUILTIN``, defined as exactly that LED (a board without
  one keeps the words unknown; the index also tries a devicetree's ``led0`` where the board has no ``led1``);
* an STM32 port pin with a dot, as older ST documents write it (``PA.5``, ``PC.13``);
* Arduino's analog pin N said in words (``analog 3``, ``analog pin 3``, ``analogue input 3``) is A3, as ``digital 13``
  is the index's D13;
* a button written out or abbreviated, as silkscreens and devicetrees do (``user button`` is ``USER_BTN``, ``BTN2``
  is ``Button 2``);
* the 1-Wire bus written with the digit or the word (``1-wire`` is ``one_wire``, ``onewire`` is ``1-Wire``);
* an LED strip's data and clock lines written out or as printed (``data`` is ``DAT``, ``DAT`` is ``DATA``,
  ``clock`` is ``CLK``);
* a converter's or timer's channel in words (``ADC1 channel 3`` is ``ADC1 CH3`` or ``ADC1 CHAN3``);
* a Nucleo's blue button, or ``button`` alone, its user button;
* an LED named by its colour, with the word LED or light after it (``amber LED``, ``red light`` on a board naming
  its LEDs ``Amber`` and ``Red``, ``green LED`` where the Arduino core writes ``LED_GREEN`` and a devicetree
  ``green_led``): only a colour, since another word before LED may name something else (a Pi's
  ``power LED`` is no supply pin);
* the header a pin name belongs to, written before it: ``Arduino D13`` is the Arduino header's D13, ``J8 pin 11``
  and ``CN10 pin 11`` are positions J8-11 and CN10-11, and so are ``J8-011`` and ``CN10-011``;
* a serial peripheral by number under the other word for it: ST writes ``USART2`` where an engineer says ``UART2``,
  and ``UART4`` beside them (``uart2 tx`` is ``USART2 TX``, ``usart4 rx`` is ``UART4 RX``).

Two more are the index's, since they need the board: ``D13/SCK`` (one pin printed with both its names) and
``pin 13`` on a board without a physical header (the board's pin number 13, as Arduino and ESP32 users say it).
"""

from __future__ import annotations

import re

__all__ = ["alternatives", "bare_role", "bus_role", "same_roles"]

#: Words that name a kind of bus ("I2C SDA", "Wire SDA", "Serial TX"), by the kind they are.
BUS_KINDS = {"i2c": "i2c", "wire": "i2c", "twi": "i2c", "spi": "spi",
             "uart": "uart", "usart": "uart", "serial": "uart"}
#: Spellings of one signal of a bus: each set is one signal, whichever word a datasheet uses for it.
_SAME = (frozenset({"tx", "txd"}), frozenset({"rx", "rxd"}), frozenset({"sck", "sclk", "clk"}),
         frozenset({"cs", "ss", "nss", "csn"}), frozenset({"mosi", "copi"}), frozenset({"miso", "cipo"}))
ROLES = {"i2c": frozenset({"sda", "scl"}),
         "spi": frozenset({"miso", "mosi", "sck", "sclk", "clk", "ss", "cs", "nss", "csn", "copi", "cipo"}),
         "uart": frozenset({"tx", "rx", "txd", "rxd", "cts", "rts"})}
#: Every bus role word of every kind ("tx", "sda", "clk").
ROLE_WORDS = frozenset(r for rs in ROLES.values() for r in rs)
_ALL_ROLES = sorted(ROLE_WORDS, key=len, reverse=True)
_BUS_ROLE = re.compile(r"(?:pin[\s_-]*)?([a-z0-9]+?)[\s_-]*(" + "|".join(_ALL_ROLES) + ")", re.IGNORECASE)
#: A name ending in a role after something naming its bus ("UART2 TX", "uart2_tx", "VSPI SCK", "SPI0.SCLK"), apart
#: from it or after its number or kind ("SPI0SCLK", "VSPISCK").
_TRAILING_ROLE = re.compile(r"(.*[A-Za-z0-9])([\s_.\-]+|(?<=[0-9])|(?<=spi)|(?<=i2c)|(?<=uart))("
                            + "|".join(_ALL_ROLES) + ")", re.IGNORECASE)
#: A role before its bus number (TXD1, SDA1, RX0) or Espressif's U<n><role> (U2TXD).
_ROLE_NUMBER = re.compile(r"(?:U(\d)(txd|rxd|rts|cts)|(" + "|".join(_ALL_ROLES) + r")[\s_-]?(\d))", re.IGNORECASE)
#: The Arduino core's prefix of its pin constants (PIN_A0, PIN_SPI_SS), followed by a name.
_CORE_PREFIX = re.compile(r"pin[_ ](?=[a-z])", re.IGNORECASE)
#: An STM32 port pin written with a dot between port and number (PA.5, PC.13), as older ST documents do.
_DOTTED_PORT = re.compile(r"(P[A-L])\.(\d{1,2})", re.IGNORECASE)
#: The board's user LED in words, which the Arduino core names LED_BUILTIN; "LED" alone says the same on a board
#: whose datasheets name no pin LED.
_USER_LED = re.compile(r"(?:(?:user|built[\s_-]?in|on[\s_-]?board)[\s_-]*)?led", re.IGNORECASE)
#: Arduino's analog pin N in words (``analog 3``, ``analog pin 3``, ``analogue input #3``): the A of A3.
_ANALOG = re.compile(r"analog(?:ue)?(?:[\s_-]*(?:pin|input|in))?[\s_-]*#?\s*(\d{1,2})", re.IGNORECASE)
#: A button's word, written out or as silkscreens and devicetrees abbreviate it (USER_BTN, BTN2, Button 2).
_BUTTON = re.compile(r"(?<![a-z])(button|btn)(?![a-z])", re.IGNORECASE)
#: A converter's or timer's channel in words (``ADC1 channel 3``, ``PWM0 channel 2``).
_CHANNEL = re.compile(r"([A-Za-z]+\d*)[\s_-]+channel[\s_-]*#?(\d{1,2})", re.IGNORECASE)
#: The board's user button by a Nucleo's colour for it, or the word alone (a board's one user button, as ``LED``
#: alone is its one user LED).
_USER_BUTTON = re.compile(r"(?:blue[\s_-]*(?:user[\s_-]*)?)?(?:button|btn)", re.IGNORECASE)
#: The 1-Wire bus written with the digit or the word (1-wire, 1wire, one_wire, onewire).
_ONE_WIRE = re.compile(r"(1|one)[\s_-]?wire", re.IGNORECASE)
#: An LED named by its colour and the word LED or light (amber LED, red light, green_led).
_COLOUR_LED = re.compile(r"(red|green|amber|yellow|orange|blue|white)[\s_-]*(?:led|light)", re.IGNORECASE)
#: An LED strip's one data line and its clock line, as they are printed (DAT or DATA, CLK).
_STRIP_LINES = {"data": "DAT", "dat": "DATA", "clock": "CLK"}
#: A UART by number, as ST writes its USARTs and other makers their UARTs: the same peripheral either way.
_UART_NUMBER = re.compile(r"(us|u)art(?=\d)", re.IGNORECASE)
#: The Arduino header named before one of its pins (``Arduino D13``, ``Arduino A0``).
_ARDUINO_HEADER = re.compile(r"arduino[\s_-]+(?=[DA]\d{1,2}$)", re.IGNORECASE)
#: A connector named before a position on it (``J8 pin 11``, ``CN10 pin #11``), or a position written with a
#: leading zero (``J8-07``, ``CN10-01``).
_CONNECTOR_PIN = re.compile(r"([A-Za-z]{1,3}\d{1,2})(?:[\s_-]*pin[\s_-]*#?\s*|[-:]0+)(\d{1,3})", re.IGNORECASE)
#: How each kind's numbered buses are written in pin names.
_BUS_WORDS = {"i2c": ("I2C",), "spi": ("SPI",), "uart": ("UART", "USART")}


def same_roles(role: str) -> frozenset[str]:
    """Every spelling of the bus signal `role` names (lower case, `role` included)."""
    r = role.lower()
    return next((s for s in _SAME if r in s), frozenset({r}))


def _kinds(role: str) -> list[str]:
    return [k for k, rs in ROLES.items() if role.lower() in rs]


def bus_role(name: str) -> tuple[str, str] | None:
    """(bus kind, role) of a role named by its bus kind without a number ("I2C SDA" -> ("i2c", "sda")), else None."""
    m = _BUS_ROLE.fullmatch(name.strip())
    if m is None:
        return None
    kind = BUS_KINDS.get(m.group(1).lower())
    role = m.group(2).lower()
    return (kind, role) if kind is not None and role in ROLES[kind] else None


#: Roles too generic to name a bus signal on their own: a board's "CLK" may be its flash or SD card clock (the
#: ESP32 DevKitC prints CLK beside GPIO6) and "CS" any chip's select; they need a bus word ("SPI CLK").
_GENERIC_ROLES = frozenset({"clk", "cs", "csn"})


def bare_role(name: str) -> tuple[str, str] | None:
    """(bus kind, role) of a role written alone ("SDA", "MOSI", "TX") when only one kind of bus has it and the
    word names nothing else on a board."""
    role = name.strip().lower()
    kinds = _kinds(role)
    return (kinds[0], role) if len(kinds) == 1 and role not in _GENERIC_ROLES else None


def _cased(word: str, like: str) -> str:
    return word.upper() if like.isupper() or not like.islower() else word


#: A wiringPi number written with the library's name: "wiringpi 8", "wiringPi pin 8", "wiring pi 8".
_WIRINGPI = re.compile(r"wiring\s?pi[\s_-]*(?:pin\s*)?(\d{1,2})", re.IGNORECASE)


def alternatives(name: str) -> list[str]:
    """The other spellings of `name` (see the module docstring), most specific first, without `name` itself."""
    s = name.strip()
    out: list[str] = []
    if s.startswith("~") and len(s) > 1:  # the PWM mark printed beside a pin number
        out.append(s[1:].strip())
    if _CORE_PREFIX.match(s) and bus_role(s) is None:  # PIN_A0; "pin 13" is a position or a number, not a name
        out.append(s[4:].strip())
    if (m := _DOTTED_PORT.fullmatch(s)) is not None:
        out.append(f"{m.group(1)}{m.group(2)}")
    if _USER_LED.fullmatch(s):
        out.append("LED_BUILTIN")
    if (m := _ANALOG.fullmatch(s)) is not None:  # analog 3: A3, which a board without Arduino's analog pins lacks
        out.append(f"A{int(m.group(1))}")
    if _BUTTON.search(s):  # user button: USER_BTN; BTN2: Button2
        out.append(_BUTTON.sub(lambda b: "BTN" if b.group(1).lower() == "button" else "Button", s))
    if (m := _ONE_WIRE.fullmatch(s)) is not None:  # 1-wire: one_wire; onewire: 1-Wire
        out.append("one_wire" if m.group(1) == "1" else "1-Wire")
    if (line := _STRIP_LINES.get(s.lower())) is not None:  # data: DAT (CLK is refused where it names no one signal)
        out.append(line)
    if (m := _CHANNEL.fullmatch(s)) is not None:  # ADC1 channel 3: ADC1_CH3, or CHAN3 as the RP1 tables write it
        out += [f"{m.group(1)} CH{m.group(2)}", f"{m.group(1)} CHAN{m.group(2)}"]
    if _USER_BUTTON.fullmatch(s):  # a Nucleo's blue button is its user button (the black one resets); "button"
        out += ["user button", "USER_BTN"]
    if (m := _COLOUR_LED.fullmatch(s)) is not None:  # amber LED: Amber, on a board naming its LEDs by colour;
        # green LED: the Arduino core's LED_GREEN, a devicetree's green_led
        out += [m.group(1), f"LED_{m.group(1).upper()}", f"{m.group(1).lower()}_led"]
    if (m := _ARDUINO_HEADER.match(s)) is not None:  # Arduino D13: D13, which a board without that header lacks
        out.append(s[m.end():])
    if (m := _WIRINGPI.fullmatch(s)) is not None:  # wiringPi 8: WPI8, the library's own number of a header pin
        out.append(f"WPI{int(m.group(1))}")
    if (m := _CONNECTOR_PIN.fullmatch(s)) is not None:  # J8 pin 11: J8-11, a position only a board with J8 has
        out.append(f"{m.group(1).upper()}-{m.group(2)}")
    out += _role_spellings(s)
    if (m := _UART_NUMBER.match(s)) is not None:  # UART2 TX: USART2 TX on an STM32; USART4 RX: UART4 RX
        head = m.group(1)  # US drops its S; U takes one in the case the word is written in
        other = (head[0] if len(head) == 2 else head + ("S" if m.group(0).isupper() else "s")) + s[len(head):]
        out += [other, *_role_spellings(other)]
    return [a for a in dict.fromkeys(out) if a and a != s]


def _role_spellings(s: str) -> list[str]:
    """The spellings of `s` with its bus role written another way (``UART2 TX``: ``UART2 TXD``; ``TXD1``:
    ``UART1_TX``)."""
    out: list[str] = []
    m = _ROLE_NUMBER.fullmatch(s)
    if m is not None:
        n, role = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        for kind in _kinds(role):
            out += [f"{bus}{n}_{r.upper()}" for bus in _BUS_WORDS[kind] for r in sorted(same_roles(role))]
    m = _TRAILING_ROLE.fullmatch(s)
    if bare_role(s) is not None:  # "SCK" alone may be spelled SCLK, never the generic CLK
        out += [_cased(r, s) for r in sorted(same_roles(s) - _GENERIC_ROLES) if r != s.lower()]
    elif m is not None and m.group(1).lower() != "pin":
        # the role stands apart from what names its bus ("VSPI SCK", "uart2_tx") or follows its number ("SPI0SCLK")
        prefix, sep, role = m.groups()
        out += [f"{prefix}{sep}{_cased(r, role)}" for r in sorted(same_roles(role)) if r != role.lower()]
    return out
