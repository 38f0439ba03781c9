"""Browser tests (Chromium, Playwright): what needs JavaScript, layout or accessibility."""
