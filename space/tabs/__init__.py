"""Tabs of the leaderboard Space, one module per tab (each exposes ``build_<name>_tab(data_dir)``)."""
