module slipway.local/tools/images/pause

go 1.24
