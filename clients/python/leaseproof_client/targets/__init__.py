"""Built-in native targets: real queue libraries' own worker loops, run by ``native.run_native``."""
