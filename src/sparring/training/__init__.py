"""AlphaZero self-play training: the typed config, self-play, the replay queue and the trainer
(``sparring train``)."""
