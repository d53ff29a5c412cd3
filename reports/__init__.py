"""HTML discrepancy reports: findings rendered for people reading them in a browser."""
