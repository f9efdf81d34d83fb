"""The lab's commands. gaji's command line adds them through the `gaji.commands` entry points (lab/pyproject.toml,
gaji/cli/main.py): `bench` and `classifier` at the top, `expand` as sub-commands of `gaji expand`."""
