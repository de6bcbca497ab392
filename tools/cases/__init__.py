"""The case library as an evidence source: past diagnosed cases, read through the `CaseSource` port."""
