"""Analysis of sweep's HDF5 result files: sweep-report, sweep-compare,
sweep-export. reader.py is the only module that opens a result file."""

__version__ = "0.1.0"
