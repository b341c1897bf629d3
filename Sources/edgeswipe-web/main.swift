import EdgeSwipeWeb
print(WebAssets.page.count)
