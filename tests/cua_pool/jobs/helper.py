"""A second file in the job's folder: the job imports it, so the folder must have been shipped."""

GREETING = "hello from the shipped folder"
