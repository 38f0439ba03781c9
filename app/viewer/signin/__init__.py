"""Sign-in for email-mode share links (placeholder until the sign-in work lands)."""
