"""One module per command: its help page, its arguments and its run.

A command's module has ``DESCRIPTION`` and ``EXAMPLES`` (its help page), ``add_arguments(p)``
(its flags, from ``gpupool.cli.options`` where shared) and ``run(args, console) -> exit code``.
``gpupool.cli.parser.COMMANDS`` names each module with its one-line help, and imports it only
for the command that runs, so ``gpupool --help`` reads the table and nothing of the commands.
"""
