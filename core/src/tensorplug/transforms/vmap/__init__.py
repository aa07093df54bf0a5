"""``tp.vmap``: the transform, its axis trees and the batching backend it runs ops on."""
