"""Reading finished nel run directories: layout, settings, rollouts (streamed), result
files, and `run.Run`, the model every analysis reads a run through."""
