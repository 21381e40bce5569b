"""Inspecting failures: which judged candidates the judges rejected, why a system produced them, which rules to blame.

A bridge (it reads the store and uses the engine): :mod:`~core.stats.verdicts`
gives every judged candidate a verdict, :mod:`~core.inspection.candidate_rows`
lists them for the Inspect screen and ``parastudio inspect``,
:mod:`~core.inspection.details` explains one, :mod:`~core.inspection.rule_blame`
finds the rules behind the rejections. For seed 001's span paraphraser,
:mod:`~core.inspection.suggestion_cases` lists every test case of an approach
with the gold's fate (the Suggestions screen) and
:mod:`~core.inspection.suggestion_study` sends a case to a human choice task.
The same queries serve the CLI and the app.
"""
