"""The wire: message types, the msgpack codec and its validation. Imports rules/ only for types."""
