"""The MLPerf atlas: its marts over the scored rounds and its published documents."""
