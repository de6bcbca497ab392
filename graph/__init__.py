"""The diagnosis graph: one LangGraph StateGraph, its nodes, the analysts and the trace recorder.

Public entry points: `graph.build.build_graph`, `graph.runner.DiagnosisRunner` (with `RunRequest`,
`RunParts`, `GraphRun`, `RunResult`, `RunFailed`), `graph.recorder.RunObserver`, and the analysts
`graph.analysts.rules.RuleAnalyst` and `graph.analysts.llm.build_llm_analyst`.
"""
