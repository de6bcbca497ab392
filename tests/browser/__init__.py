"""Browser tests: the bundled frontend driven in Debian's headless chromium."""
