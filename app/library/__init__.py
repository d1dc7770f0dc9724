"""The engagement library: publishing a workspace's engagement (app.library.publish). Reading and the layout on
disk: app.store.library; the figures and the comparison: app.analysis.library. No Qt."""
