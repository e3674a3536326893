"""Command output: how results read for people (text, markdown) and machines (JSON).

``plan_text`` owns the plan's text output and the helpers its other formats share,
``plan_json`` the SPEC 5.1 JSON document, ``plan_markdown`` the pull-request comment.
``plan_text.render`` picks one by ``--format``.
"""
