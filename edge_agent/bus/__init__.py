"""One I2C/SPI/GPIO API over every adapter, chosen by URL: ``open_adapter("sim://nucleo-f401re")``."""

from edge_agent.bus.base import Adapter, I2CBus, I2CDevice, SPIDevice, format_scan_grid
from edge_agent.bus.registry import open_adapter
from edge_agent.bus.safety import SafetyPolicy
from edge_agent.bus.url import AdapterURL

__all__ = ["Adapter", "AdapterURL", "I2CBus", "I2CDevice", "SPIDevice", "SafetyPolicy", "format_scan_grid",
           "open_adapter"]
