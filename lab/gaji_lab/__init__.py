"""gaji's lab: the benchmark harness (gaji_lab.bench), the trainers of the classifiers, routers and keyword models
(gaji_lab.learn, gaji_lab.expand) and the commands that run them (gaji_lab.cli: `gaji bench …`,
`gaji classifier …`, `gaji expand label | train-tagger | train | subset | bench`).

It depends on gaji and is never imported by it: gaji's command line finds these commands through the
`gaji.commands` entry points declared in lab/pyproject.toml. Install it from a clone with `pip install -e ./lab`.
"""
__version__ = "0.1.0"
