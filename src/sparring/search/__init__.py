"""Tree search driven by an evaluator: AlphaZero's batched PUCT search (AlphaDDA app. 1.2)."""

from sparring.search.puct import PUCTConfig, SearchResult, search, search_batch

__all__ = ["PUCTConfig", "SearchResult", "search", "search_batch"]
