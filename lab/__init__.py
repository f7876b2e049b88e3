"""Lab-scale runs on a Dask cluster: where a run runs, its tasks, its checkpoint.

`etg rtp` and `etg cert run` cut a run into numbered tasks that run on
``dask.distributed`` (an embedded local cluster by default, or an existing cluster named
by ``--scheduler`` or Dask's own ``scheduler-address`` configuration). This package holds
what both share and nothing of either: opening the client (:mod:`lab.cluster`),
submitting a bounded window of tasks and folding their results back in task order
(:mod:`lab.tasks`), and the append-only file of finished task results a run resumes from
(:mod:`lab.checkpoint`). Dask is imported only when a run opens a cluster, never at the
table's start-up. A leaf package: it imports nothing of ours but the error types.
"""
