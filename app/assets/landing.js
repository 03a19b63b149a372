// Placeholder: the landing page's behaviours arrive with the public-site work.
document.documentElement.dataset.enhanced = "true";
