"""Tests of the match server: the runner, streams, guards, and real uvicorn servers."""
