"""(rules to come)"""
