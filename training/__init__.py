"""Self-play training, evaluation and tournaments (to come)."""
