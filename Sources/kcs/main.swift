print("kcs")
