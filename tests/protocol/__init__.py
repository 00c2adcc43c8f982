"""Tests of the wire protocol: messages, codec, sessions."""
