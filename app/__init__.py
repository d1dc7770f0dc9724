"""StormScope application: workspace, analysis, jobs, command line and (in app.ui) the Qt window."""
