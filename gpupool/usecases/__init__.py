"""The use cases: what each ``gpupool`` command does, as functions that return results.

One module per command; none parses arguments or prints (``gpupool.cli`` does, through
``gpupool.views``):

- ``validate``: check stack files (and read the one stack file every other command starts from);
- ``schema``: the published JSON Schema;
- ``base`` and ``plan``: resolve a plan's base (the applied record, another stack file, a git
  revision) and plan the stack against it, offline;
- ``render``: write the stack's Pulumi program;
- ``engine``: ``preview``, ``up`` and ``destroy`` through the Pulumi Automation API, with the
  program rendered where the engine expects it, what the engine needs checked before anything is
  asked, the stack lock held and the applied record kept true;
- ``expect``: the plan reviewed earlier (``up --expect``) and how a preview differs from it;
- ``drift``: every drift source the stack has access to;
- ``catalog``: the GPU and instance listings, filtered;
- ``node``: the local node's GPU inventory.
"""
