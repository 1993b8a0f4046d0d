"""Facts about parts, taken from their datasheets and kept as data.

Register maps, calibration layouts, compensation formulas and sensor channel ranges. Nothing here
touches a bus, a driver or the configuration, so the configuration, the drivers and the simulated
parts can all build on it.
"""
