"""The benchmark's task pack: one builder per dataset (``tabular``, ``tabular_extra``, ``media``),
each writing a task's ``input/`` and returning a ``Built``; ``build`` assembles the folders."""
