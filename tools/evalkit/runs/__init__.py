"""Reading finished nel run directories: layout, rollouts (streamed) and result files."""
