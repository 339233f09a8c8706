"""The checks a finished or growing run must pass: validate runs them to a verdict;
status runs the same ones on what is written so far."""
