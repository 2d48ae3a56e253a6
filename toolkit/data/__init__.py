"""Floor 2, the data layer: validating records, reading runs and datasets (the one read door), every leaderboard
number (scoring), reliability metrics and the board's figures. Imports only the core."""
