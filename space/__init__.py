"""The slmboard leaderboard Space (Gradio). `from space.app import build_app, launch`."""
