"""Adapter URLs: ``scheme://target[?key=value&...]``, one per adapter."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Self

from edge_agent.errors import InvalidAdapterURL

GRAMMAR = (
    "scheme://target[?key=value&...], e.g. sim://nucleo-f401re?scenario=default, "
    "linux://?i2c=1&spi=0.0&gpiochip=0, aardvark://2237170206, ftdi://ftdi:232h/1, "
    "bridge:///dev/ttyACM0?baud=115200"
)


@dataclass(frozen=True, slots=True)
class AdapterURL:
    """A parsed adapter URL; ``str()`` gives back the text it was parsed from."""

    scheme: str
    target: str
    options: Mapping[str, str]
    text: str

    @classmethod
    def parse(cls, text: str) -> Self:
        """Parse ``text``; raises InvalidAdapterURL with the grammar when it is malformed."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidAdapterURL(f"adapter URL {text!r} is empty; expected {GRAMMAR}")
        text = text.strip()
        if "://" not in text:
            raise InvalidAdapterURL(f"adapter URL {text!r} has no scheme; expected {GRAMMAR}")
        scheme, _, rest = text.partition("://")
        if not scheme or not scheme.replace("+", "").replace("-", "").isalnum():
            raise InvalidAdapterURL(f"adapter URL {text!r} has an invalid scheme {scheme!r}; expected {GRAMMAR}")
        if "#" in rest:
            raise InvalidAdapterURL(f"adapter URL {text!r} must not contain a '#' fragment; expected {GRAMMAR}")
        target, _, query = rest.partition("?")
        options: dict[str, str] = {}
        if query:
            try:
                pairs = urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=True)
            except ValueError:
                raise InvalidAdapterURL(
                    f"adapter URL {text!r} has a malformed query {query!r}; expected {GRAMMAR}"
                ) from None
            for key, value in pairs:
                if key in options:
                    raise InvalidAdapterURL(f"adapter URL {text!r} gives option {key!r} twice")
                options[key] = value
        return cls(scheme.lower(), urllib.parse.unquote(target), MappingProxyType(options), text)

    def __str__(self) -> str:
        return self.text

    @property
    def base(self) -> str:
        """The URL without its query (what vendor libraries such as pyftdi expect)."""
        return self.text.partition("?")[0]

    def check_options(self, known: Iterable[str]) -> None:
        """Reject options not in ``known``, naming each one and listing the known ones."""
        allowed = sorted(known)
        unknown = sorted(set(self.options) - set(allowed))
        if unknown:
            names = ", ".join(repr(u) for u in unknown)
            raise InvalidAdapterURL(
                f"{self.text}: unknown option{'s' if len(unknown) > 1 else ''} {names} for {self.scheme}://; "
                f"known: {', '.join(allowed) or '(none)'}"
            )

    def int_option(self, key: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
        """An integer option (decimal or 0x-hex) with bounds, or ``default`` when absent."""
        raw = self.options.get(key)
        if raw is None:
            return default
        try:
            value = int(raw, 0)
        except ValueError:
            raise InvalidAdapterURL(f"{self.text}: option {key}={raw!r} is not an integer") from None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            raise InvalidAdapterURL(f"{self.text}: option {key}={value} is outside {minimum}..{maximum}")
        return value

    def bool_option(self, key: str, default: bool) -> bool:
        """A boolean option (1/0, true/false, yes/no, on/off)."""
        raw = self.options.get(key)
        if raw is None:
            return default
        low = raw.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise InvalidAdapterURL(f"{self.text}: option {key}={raw!r} must be true or false")

    def choice_option(self, key: str, default: str, choices: Iterable[str]) -> str:
        """An option from a closed set of values."""
        allowed = list(choices)
        raw = self.options.get(key, default)
        if raw not in allowed:
            raise InvalidAdapterURL(f"{self.text}: option {key}={raw!r} must be one of {', '.join(allowed)}")
        return raw
