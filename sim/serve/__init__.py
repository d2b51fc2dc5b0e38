"""The page for players at a real table and its JSON API (`wizard-sim serve`, docs/serve.md)."""
